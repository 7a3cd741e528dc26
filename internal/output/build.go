package output

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/boundyaml"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

// Where the bundle and the overlay sit in kustomize's in-memory file
// system: nothing of the host's is visible to it.
const (
	memBundle  = "/karpgen/bundle"
	memOverlay = "/karpgen/overlay"
)

// BuildBundle runs kustomize over a bundle, in memory, and returns the
// objects as one YAML stream. When overlayDir holds a kustomization.yaml,
// it is built on top of the bundle: the bundle becomes its first
// resource, so the overlay's patches, labels and annotations apply to it.
// The overlay is read through an os.Root (nothing outside overlayDir, not
// even through a symbolic link) and may name nothing remote.
//
// An overlay may only patch, label and annotate the bundle's objects: an
// object it adds, removes or renames is refused unless its kind is in
// allowKinds ("Kind" or "group/Kind").
func BuildBundle(b *model.Bundle, overlayDir string, allowKinds ...string) ([]byte, error) {
	mem := filesys.MakeFsInMemory()
	for p, data := range b.Files {
		if err := mem.WriteFile(path.Join(memBundle, p), data); err != nil {
			return nil, err
		}
	}
	root := memBundle
	if overlayDir != "" {
		found, err := copyOverlay(mem, overlayDir, memOverlay)
		if err != nil {
			return nil, err
		}
		if found {
			root = memOverlay
		}
	}
	stream, err := kustomize(mem, root, b.Env)
	if err != nil || root == memBundle {
		return stream, err
	}
	base, err := kustomize(mem, memBundle, b.Env)
	if err != nil {
		return nil, err
	}
	if err := onlyOwnObjects(b.Env, base, stream, allowKinds); err != nil {
		return nil, err
	}
	return stream, nil
}

// kustomize builds the kustomization at root of the in-memory file
// system.
func kustomize(mem filesys.FileSystem, root, env string) ([]byte, error) {
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, root)
	if err != nil {
		return nil, fmt.Errorf("kustomize: %w", err)
	}
	if res.Size() == 0 {
		return nil, fmt.Errorf("environment %s has no Kubernetes objects", env)
	}
	return res.AsYaml()
}

// copyOverlay copies the overlay folder into memory, checks that its
// kustomizations name only files of the overlay, and makes the bundle the
// first resource of its kustomization.yaml. found is false when the
// folder has no kustomization.yaml.
func copyOverlay(mem filesys.FileSystem, dir, to string) (found bool, err error) {
	// profiles/overlays and profiles/overlays/<env> are real folders:
	// os.OpenRoot would follow a link that is the folder itself.
	if err := safefs.RealFolderBelow(filepath.Dir(filepath.Dir(dir)), filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir))); err != nil {
		return false, err
	}
	found, err = copyKustomization(mem, dir, to, folderRules{"overlay", "build reads only files inside it", "build loads overlays from the profiles folder only"})
	if !found || err != nil {
		return found, err
	}
	kpath := path.Join(to, "kustomization.yaml")
	if !mem.Exists(kpath) {
		return false, fmt.Errorf("%s: an overlay's kustomization is named kustomization.yaml", dir)
	}
	data, err := mem.ReadFile(kpath)
	if err != nil {
		return false, err
	}
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil {
		return false, fmt.Errorf("%s: %w", filepath.Join(dir, "kustomization.yaml"), err)
	}
	if k == nil {
		k = map[string]any{}
	}
	resources, _ := k["resources"].([]any)
	k["resources"] = append([]any{"../bundle"}, resources...)
	out, err := yaml.Marshal(k)
	if err != nil {
		return false, err
	}
	return true, mem.WriteFile(kpath, out)
}

// kustomizationNames are the names kustomize reads a folder's
// kustomization from.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// isKustomization tells whether dir holds a kustomization, under any of
// the names kustomize reads, as a regular file.
func isKustomization(dir string) bool {
	for _, name := range kustomizationNames {
		if info, err := os.Lstat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// BuildWorkloads runs kustomize over a folder of the user's (workloads
// to place), in memory, as BuildBundle reads an overlay: files of the
// folder only, no symbolic link out of it, nothing remote, no Helm chart.
// found is false, and nothing is read, when the folder holds no
// kustomization as a regular file: its files are then read one by one.
// It is what simulate.ReadWorkloads is given, so that the simulation
// does not link kustomize.
func BuildWorkloads(dir string) (stream []byte, found bool, err error) {
	if !isKustomization(dir) {
		return nil, false, nil
	}
	mem := filesys.MakeFsInMemory()
	const root = "/karpgen/workloads"
	found, err = copyKustomization(mem, dir, root, folderRules{"workloads", "only files inside it are read", "a kustomize build of workloads reads the folder only"})
	if err != nil {
		return nil, true, err
	}
	if !found {
		return nil, true, fmt.Errorf("%s: no kustomization (kustomization.yaml, kustomization.yml or Kustomization)", dir)
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, root)
	if err != nil {
		return nil, true, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	stream, err = res.AsYaml()
	return stream, true, err
}

// folderRules say, in messages, what folder is read ("overlay"), that a
// link out of it is not followed, and where its kustomizations may name
// files from.
type folderRules struct{ what, links, names string }

// copyKustomization copies a folder holding a kustomization.yaml into
// memory at to, each file regular, bounded and inside the folder, and
// checks that its kustomizations name only files of it. found is false
// when it has no kustomization.yaml.
func copyKustomization(mem filesys.FileSystem, dir, to string, rules folderRules) (found bool, err error) {
	r, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s %s: %w", rules.what, dir, err)
	}
	defer r.Close()
	fsys := r.FS()
	if !slices.ContainsFunc(kustomizationNames, func(name string) bool { _, err := fs.Stat(fsys, name); return err == nil }) {
		return false, nil
	}
	var kustomizations []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return &safefs.LinkError{Path: filepath.Join(dir, p), What: safefs.Kind(d.Type()), File: true}
		}
		if info, err := fs.Stat(fsys, p); err == nil && info.Size() > boundyaml.MaxBytes {
			return &boundyaml.Error{File: filepath.ToSlash(filepath.Join(dir, p)), Reason: fmt.Sprintf("%d bytes, more than %d: refused", info.Size(), boundyaml.MaxBytes)}
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			if _, ok := escaped(err.Error()); ok {
				return fmt.Errorf("%s: a symbolic link out of the %s folder; %s", filepath.Join(dir, p), rules.what, rules.links)
			}
			return err
		}
		// Nested anchors would make kustomize expand them past any
		// memory limit of the plugin's sidecar.
		if err := boundyaml.Check(filepath.ToSlash(filepath.Join(dir, p)), data); err != nil {
			return err
		}
		if base := path.Base(p); base == "kustomization.yaml" || base == "kustomization.yml" || base == "Kustomization" {
			kustomizations = append(kustomizations, p)
		}
		return mem.WriteFile(path.Join(to, p), data)
	})
	if err != nil {
		return false, fmt.Errorf("reading %s %s: %w", rules.what, dir, err)
	}
	for _, k := range kustomizations {
		data, _ := mem.ReadFile(path.Join(to, k))
		if err := localOnly(dir, k, data, rules.names); err != nil {
			return false, err
		}
	}
	return true, nil
}

// pathFields are the kustomization fields that name files or folders,
// with the key inside their items that does ("" for a list of paths).
var pathFields = map[string][]string{
	"resources": {""}, "bases": {""}, "components": {""}, "crds": {""},
	"configurations": {""}, "generators": {""}, "transformers": {""}, "validators": {""},
	"patchesStrategicMerge": {""},
	"patches":               {"path"}, "patchesJson6902": {"path"}, "replacements": {"path"},
	"configMapGenerator": {"files", "envs", "env"}, "secretGenerator": {"files", "envs", "env"},
	"openapi": {"path"},
}

// localOnly refuses a kustomization (file, in the overlay folder dir)
// that names anything but a file or folder of the overlay: remote bases
// and resources (URLs, git repositories) would reach the network, and
// paths that climb out would read the host. Helm charts are refused too
// (they fetch charts and run helm).
func localOnly(dir, file string, data []byte, rule string) error {
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, file), err)
	}
	shown := filepath.ToSlash(filepath.Join(dir, file))
	if _, ok := k["helmCharts"]; ok {
		return fmt.Errorf("%s: helmCharts are refused: build runs no helm and fetches no chart", shown)
	}
	base := path.Dir(file)
	check := func(field, p string) error {
		if why := notLocal(base, p); why != "" {
			return fmt.Errorf("%s: %s %q %s; %s", shown, field, p, why, rule)
		}
		return nil
	}
	for _, field := range slices.Sorted(maps.Keys(pathFields)) {
		v, ok := k[field]
		if !ok {
			continue
		}
		for _, item := range asList(v) {
			for _, key := range pathFields[field] {
				var values []any
				if key == "" {
					values = []any{item}
				} else if m, ok := item.(map[string]any); ok {
					values = asList(m[key])
				}
				for _, x := range values {
					s, ok := x.(string)
					if !ok {
						continue
					}
					// files: [key=path] names the file after "=".
					if _, after, ok := strings.Cut(s, "="); ok && (key == "files") {
						s = after
					}
					if err := check(field, s); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// notLocal says why p, named in a kustomization in folder base of the
// overlay, is not a path inside the overlay, or "".
func notLocal(base, p string) string {
	switch {
	case strings.Contains(p, "://") || strings.HasPrefix(p, "git@") || strings.Contains(p, "?ref=") || strings.Contains(p, "//"):
		return "is remote"
	case path.IsAbs(p) || filepath.IsAbs(p):
		return "is an absolute path"
	case !fs.ValidPath(path.Join(base, p)):
		return "leaves the overlay folder"
	}
	return ""
}

func asList(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case nil:
		return nil
	}
	return []any{v}
}
