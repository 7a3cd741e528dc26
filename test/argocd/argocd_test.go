package argocd

import (
	"bytes"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	cmpcommands "github.com/argoproj/argo-cd/v3/cmd/argocd-cmp-server/commands"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	reposervercache "github.com/argoproj/argo-cd/v3/reposerver/cache"
	"github.com/argoproj/argo-cd/v3/reposerver/metrics"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	cacheutil "github.com/argoproj/argo-cd/v3/util/cache"
	"github.com/argoproj/argo-cd/v3/util/git"
	utiltls "github.com/argoproj/argo-cd/v3/util/tls"
	log "github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/resource"
)

// cmpServerRole, set in its environment, makes the test binary run as
// argocd-cmp-server: Argo CD's own command, with the arguments given.
const cmpServerRole = "KARPGEN_E2E_CMP_SERVER"

// The sidecar's user in deploy/argocd/repo-server-patch.yaml.
const sidecarUID = 999

// Argo CD's application controller asks the repo-server with this
// deadline (--repo-server-timeout-seconds, 60 by default).
const controllerTimeout = 60

// world is the Argo CD the tests talk to, started once by TestMain.
var world *argoCD

type argoCD struct {
	root    string // karpgen's repository
	tmp     string
	karpgen string // the binary on the cmp-server's PATH
	addr    string // the repo-server's gRPC address
	cmp     *exec.Cmd
	cmpLog  *bytes.Buffer
}

func TestMain(m *testing.M) {
	if os.Getenv(cmpServerRole) != "" {
		cmd := cmpcommands.NewCommand()
		cmd.SetArgs(os.Args[1:])
		if err := cmd.Execute(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipped: the Argo CD end-to-end test does not run under -short")
		os.Exit(0)
	}
	// The repo-server's warnings and errors, shown when a test fails.
	// (Its git commands log on loggers of their own, of the level
	// --loglevel sets through the environment.)
	repoLog := &bytes.Buffer{}
	log.SetLevel(log.WarnLevel)
	log.SetOutput(repoLog)
	os.Setenv(common.EnvLogLevel, "warn")
	w, err := start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting Argo CD:", err)
		if w != nil {
			w.stop()
		}
		os.Exit(1)
	}
	world = w
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "the repo-server's log:\n%s\nargocd-cmp-server's log:\n%s", repoLog, w.cmpLog)
	}
	w.stop()
	os.Exit(code)
}

// start builds (or takes, from KARPGEN_BIN) the karpgen binary, starts
// argocd-cmp-server with deploy/argocd/plugin.yaml as the sidecar does,
// and serves the repo-server's gRPC API on a loopback port.
func start() (*argoCD, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "karpgen-argocd-")
	if err != nil {
		return nil, err
	}
	w := &argoCD{root: root, tmp: tmp, cmpLog: &bytes.Buffer{}}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return w, err
	}
	bin := filepath.Join(tmp, "bin")
	w.karpgen = filepath.Join(bin, "karpgen")
	if err := os.Mkdir(bin, 0o755); err != nil {
		return w, err
	}
	if src := os.Getenv("KARPGEN_BIN"); src != "" {
		data, err := os.ReadFile(src)
		if err != nil {
			return w, err
		}
		if err := os.WriteFile(w.karpgen, data, 0o755); err != nil {
			return w, err
		}
	} else {
		build := exec.Command("go", "build", "-o", w.karpgen, "./cmd/karpgen")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			return w, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}

	// The sidecar's folders: its plugin.yaml, the socket folder shared
	// with the repo-server, and the folder checkouts are unpacked into.
	dirs := map[string]string{}
	for _, d := range []string{"config", "plugins", "work", "home"} {
		dirs[d] = filepath.Join(tmp, "cmp", d)
		if err := os.MkdirAll(dirs[d], 0o755); err != nil {
			return w, err
		}
		if os.Geteuid() == 0 {
			if err := os.Chown(dirs[d], sidecarUID, sidecarUID); err != nil {
				return w, err
			}
		}
	}
	plugin, err := os.ReadFile(filepath.Join(root, "deploy", "argocd", "plugin.yaml"))
	if err != nil {
		return w, err
	}
	if err := os.WriteFile(filepath.Join(dirs["config"], "plugin.yaml"), plugin, 0o644); err != nil {
		return w, err
	}
	// The test binary, copied where the sidecar's user may run it, is
	// the cmp-server (TestMain).
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		return w, err
	}
	cmpServer := filepath.Join(bin, common.CommandCMPServer)
	if err := os.WriteFile(cmpServer, self, 0o755); err != nil {
		return w, err
	}
	w.cmp = exec.Command(cmpServer, "--config-dir-path", dirs["config"], "--loglevel", "info", "--logformat", "text")
	w.cmp.Env = []string{
		cmpServerRole + "=1",
		"PATH=" + bin, // karpgen and the cmp-server alone, as in the image
		"HOME=" + dirs["home"],
		common.EnvPluginSockFilePath + "=" + dirs["plugins"],
		"ARGOCD_CMP_WORKDIR=" + dirs["work"],
	}
	w.cmp.Stdout, w.cmp.Stderr = w.cmpLog, w.cmpLog
	if os.Geteuid() == 0 {
		w.cmp.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: sidecarUID, Gid: sidecarUID}}
	}
	if err := w.cmp.Start(); err != nil {
		return w, err
	}
	sock := filepath.Join(dirs["plugins"], "karpgen-v1.sock")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return w, fmt.Errorf("argocd-cmp-server made no socket %s in 30s:\n%s", sock, w.cmpLog)
		}
	}

	// The repo-server finds plugins by the sockets in this folder, and
	// runs its image's git-verify-wrapper.sh on every revision it checks
	// out (Argo CD's own script, from the module).
	os.Setenv(common.EnvPluginSockFilePath, dirs["plugins"])
	mod, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		return w, fmt.Errorf("go list -m github.com/argoproj/argo-cd/v3: %v", err)
	}
	wrapper, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(mod)), "hack", "git-verify-wrapper.sh"))
	if err != nil {
		return w, err
	}
	repoBin := filepath.Join(tmp, "repo-server", "bin")
	if err := os.MkdirAll(repoBin, 0o755); err != nil {
		return w, err
	}
	if err := os.WriteFile(filepath.Join(repoBin, "git-verify-wrapper.sh"), wrapper, 0o755); err != nil {
		return w, err
	}
	os.Setenv("PATH", repoBin+":"+os.Getenv("PATH"))
	// Its checkouts go under $TMPDIR/_argocd-repo.
	if err := os.Setenv("TMPDIR", filepath.Join(tmp, "repo-server")); err != nil {
		return w, err
	}
	cache := reposervercache.NewCache(cacheutil.NewCache(cacheutil.NewInMemoryCache(time.Hour)), time.Hour, 3*time.Minute, 10*time.Second)
	server, err := reposerver.NewServer(metrics.NewMetricsServer(), cache, func(*tls.Config) {}, repository.RepoServerInitConstants{
		// The defaults of argocd-repo-server's flags.
		MaxCombinedDirectoryManifestsSize: resource.MustParse("10M"),
		StreamedManifestMaxTarSize:        100 * 1000 * 1000,
		StreamedManifestMaxExtractedSize:  1000 * 1000 * 1000,
		HelmManifestMaxExtractedSize:      1000 * 1000 * 1000,
		HelmRegistryMaxIndexSize:          1000 * 1000 * 1000,
		OCIManifestMaxExtractedSize:       1000 * 1000 * 1000,
	}, &git.NoopCredsStore{}, "", true)
	if err != nil {
		return w, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return w, err
	}
	w.addr = lis.Addr().String()
	go server.CreateGRPC().Serve(lis)
	return w, nil
}

// stop ends the cmp-server (which, like the sidecar, leaves only on
// SIGKILL: it catches SIGTERM to remove its socket) and the temp folder.
func (w *argoCD) stop() {
	if w.cmp != nil && w.cmp.Process != nil {
		w.cmp.Process.Kill()
		w.cmp.Wait()
	}
	os.RemoveAll(w.tmp)
}

// client is a repo-server client as the application controller makes it,
// with its deadline in seconds.
func (w *argoCD) client(t *testing.T, timeoutSeconds int) apiclient.RepoServerServiceClient {
	t.Helper()
	closer, c, err := apiclient.NewRepoServerClientset(w.addr, timeoutSeconds, utiltls.Configuration{DisableTLS: true}).NewRepoServerClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closer.Close() })
	return c
}

// gitRepo is a local git repository Argo CD checks out over file://.
type gitRepo struct {
	t   *testing.T
	dir string
}

// newRepo makes a git repository with the given files of karpgen's
// repository (folders copied whole) and commits them on main.
func newRepo(t *testing.T, paths ...string) *gitRepo {
	t.Helper()
	r := &gitRepo{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	r.git("init", "-q", "-b", "main", r.dir)
	for _, p := range paths {
		src := filepath.Join(world.root, p)
		err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(world.root, path)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return r.write(rel, string(data))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	r.commit("profiles")
	return r
}

func (r *gitRepo) write(rel, data string) error {
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(data), 0o644)
}

// commit commits every change and returns the commit's SHA.
func (r *gitRepo) commit(msg string) string {
	r.git("-C", r.dir, "add", "-A")
	r.git("-C", r.dir, "-c", "user.name=karpgen", "-c", "user.email=karpgen@example.com", "commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(r.git("-C", r.dir, "rev-parse", "HEAD"))
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *gitRepo) url() string { return "file://" + r.dir }

// request is the manifest request the application controller sends for
// one source of an Application.
func request(r *gitRepo, revision, app string, src v1alpha1.ApplicationSource) *apiclient.ManifestRequest {
	src.RepoURL = r.url()
	return &apiclient.ManifestRequest{
		Repo:               &v1alpha1.Repository{Repo: r.url()},
		Revision:           revision,
		AppName:            app,
		Namespace:          "karpenter",
		ApplicationSource:  &src,
		KubeVersion:        "1.32.0",
		ApiVersions:        []string{"v1", "apps/v1", "karpenter.sh/v1", "karpenter.k8s.aws/v1"},
		AppLabelKey:        "app.kubernetes.io/instance",
		TrackingMethod:     string(v1alpha1.TrackingMethodAnnotation),
		ProjectName:        app,
		ProjectSourceRepos: []string{"*"},
		NoCache:            true,
		NoRevisionCache:    true,
	}
}
