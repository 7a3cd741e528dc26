package doctor

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Check is one comparison of the catalog (docs/doctor.md).
type Check struct {
	ID       string
	Severity diag.Severity
	Summary  string
	run      func(c *checkRun)
}

// Files are the captured files the check reads for an environment, in
// the order it reads them; without any of them it is skipped. They are
// what its run loads, found by running it on empty files (every load
// succeeds with nothing in it): the file names depend on the profile,
// never on what a file holds, so no list names them a second time.
func (ch *Check) Files(e *model.Env) []string {
	c := &checkRun{e: e, check: ch, dry: true}
	ch.run(c)
	var out []string
	for _, f := range c.reads {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Result is one check's outcome.
type Result struct {
	Check   string `json:"check"`
	Status  string `json:"status"` // ok, failed, skipped, not-checked, not-applicable
	Skipped string `json:"skipped,omitempty"`
	// NotChecked says why a captured file says nothing of the account:
	// the capture ran without credentials, was denied, or lacked a tool.
	NotChecked string `json:"notChecked,omitempty"`
	// Findings are the differences between what should be and what is:
	// the resource, what was expected and found, and the fix (Hint).
	Findings []diag.Finding `json:"findings"`
}

// Report is a doctor run.
type Report struct {
	Env     string   `json:"env"`
	Results []Result `json:"results"`
}

// Incomplete reports a capture that checked nothing of a kind it should:
// a check was not checked (credentials, access, tools), or no check ran
// at all (an empty or foreign folder).
func (r *Report) Incomplete() bool {
	ran := false
	for _, res := range r.Results {
		switch res.Status {
		case "not-checked":
			return true
		case "ok", "failed":
			ran = true
		}
	}
	return !ran
}

// Errors reports whether a check found an error.
func (r *Report) Errors() bool {
	for _, res := range r.Results {
		for _, f := range res.Findings {
			if f.Severity == diag.Error {
				return true
			}
		}
	}
	return false
}

type checkRun struct {
	e        *model.Env
	s        *State
	check    *Check
	findings []diag.Finding
	err      error
	// notChecked is why a file the check read holds no answer.
	notChecked string
	// dry runs the check for the files it reads (Files): every load
	// succeeds, leaving its value empty, and is recorded in reads.
	dry   bool
	reads []string
	// uncaptured are the files the check needed and the capture lacks:
	// it stopped there, its findings so far standing.
	uncaptured []string
}

// captureFailures are the error codes of a capture that could not look:
// no or expired credentials, access denied, a tool that is missing. A
// file holding one says nothing of the account, so its check is not
// checked rather than failed (its fix would redeploy everything).
var captureFailures = []string{
	"ExpiredToken", "ExpiredTokenException", "AccessDenied", "AccessDeniedException", "UnauthorizedOperation",
	"UnrecognizedClientException", "InvalidClientTokenId", "Forbidden", "Unauthorized", "CommandFailed",
}

func (c *checkRun) report(resource, expected, found, fix string) {
	c.findings = append(c.findings, diag.Finding{Rule: c.check.ID, Severity: c.check.Severity, Resource: resource, Expected: expected, Found: found, Hint: fix})
}

// load reads a file the check needs; false when the check cannot go on
// (the failure is then a finding or a state error).
func (c *checkRun) load(file string, v any, resource, expected, fix string) bool {
	if c.dry {
		c.reads = append(c.reads, file)
		return true
	}
	found, failed, err := c.s.read(file, v)
	switch {
	case err != nil:
		c.err = err
		return false
	case !found:
		c.uncaptured = append(c.uncaptured, file)
		return false
	case failed != nil && slices.Contains(captureFailures, failed.Code):
		c.notChecked = file + ": " + failed.Code + ": " + failed.Message
		return false
	case failed != nil:
		c.report(resource, expected, failed.Code+": "+failed.Message, fix)
		return false
	}
	return true
}

// Run runs every check on a captured folder. The error is for a folder
// that cannot be read as a capture.
func Run(e *model.Env, s *State) (*Report, error) {
	r := &Report{Env: e.Name}
	// What kubectl and helm captured of another cluster says nothing of
	// this one: those checks are not checked.
	var cl eksCluster
	var kc kubeConfig
	foreign := ""
	if found, failed, err := s.read("eks-cluster.json", &cl); err == nil && found && failed == nil {
		if found, failed, err := s.read("k8s-context.json", &kc); err == nil && found && failed == nil {
			if server, ok := otherCluster(cl, kc); ok {
				foreign = "kubectl pointed at " + server + ", not at the endpoint of " + e.Names.Cluster + " (" + cl.Cluster.Endpoint + ")"
			}
		}
	}
	for _, ch := range Catalog() {
		res := Result{Check: ch.ID, Findings: []diag.Finding{}}
		files := ch.Files(e)
		if len(files) == 0 {
			res.Status = "not-applicable"
			r.Results = append(r.Results, res)
			continue
		}
		var missing []string
		for _, f := range files {
			found, _, err := s.read(f, &json.RawMessage{})
			if err != nil {
				return nil, err
			}
			if !found {
				missing = append(missing, f)
			}
		}
		if len(missing) == len(files) {
			res.Status, res.Skipped = "skipped", strings.Join(missing, ", ")+" not captured"
			r.Results = append(r.Results, res)
			continue
		}
		if foreign != "" && ch.ID != "doctor/kube-context" && slices.ContainsFunc(files, fromCluster) {
			res.Status, res.NotChecked = "not-checked", foreign
			r.Results = append(r.Results, res)
			continue
		}
		c := &checkRun{e: e, s: s, check: ch}
		ch.run(c)
		if c.err != nil {
			return nil, c.err
		}
		// A check runs on what was captured: a finding made before a
		// file it lacks stands, and the part it could not reach is said.
		res.Findings = append(res.Findings, c.findings...)
		if len(c.uncaptured) > 0 {
			res.Skipped = strings.Join(c.uncaptured, ", ") + " not captured"
		}
		res.Status = "ok"
		switch {
		case len(c.findings) > 0:
			res.Status = "failed"
		case c.notChecked != "":
			res.Status, res.NotChecked = "not-checked", c.notChecked
		case len(c.uncaptured) > 0:
			res.Status = "skipped"
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}

// fromCluster says a captured file is kubectl's or helm's: read from the
// cluster the kubeconfig points at.
func fromCluster(file string) bool {
	return strings.HasPrefix(file, "k8s-") || strings.HasPrefix(file, "helm-")
}

// applyApplication is how the Application is put right: it is the
// bundle's argocd-application.yaml, applied to the cluster Argo CD runs in.
func (c *checkRun) applyApplication() string {
	return escape.ShellJoin("kubectl", "apply", "-f", c.file(model.FileApplication))
}

// argoApplication is what doctor reads of an Argo CD Application.
type argoApplication struct {
	Spec struct {
		Sources any `json:"sources"`
	} `json:"spec"`
	Status struct {
		Sync struct {
			Status string `json:"status"`
		} `json:"sync"`
		Health struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"health"`
	} `json:"status"`
}

// wantCRDs are the CRDs the profile's minor installs that the profile
// needs: NodePool, NodeClaim and EC2NodeClass always, NodeOverlay and
// CapacityBuffer when it has some.
func (c *checkRun) wantCRDs() []facts.CRD {
	var out []facts.CRD
	for _, crd := range c.e.Facts.CRDsOf() {
		switch {
		case crd.Kind == "NodeOverlay" && len(c.e.Profile.NodeOverlays) == 0:
		case crd.Kind == "CapacityBuffer" && len(c.e.Profile.CapacityBuffers) == 0:
		default:
			out = append(out, crd)
		}
	}
	return out
}

// installCRDs is the command that installs the minor's CRDs.
func (c *checkRun) installCRDs() string {
	if c.e.Application != nil {
		return c.deployController()
	}
	return escape.ShellJoin("helm", "upgrade", "--install", "karpenter-crd", generators.ChartRef("karpenter-crd"),
		"--version", c.e.Version.String(), "--namespace", c.e.Names.Namespace)
}

// Catalog returns the checks, in the order they run.
func Catalog() []*Check { return catalog }

var catalog = slices.Concat(networkChecks, iamChecks, clusterChecks, groupChecks)

// file is a file of the environment's bundle as seen from the repository
// root, where every fix command runs.
func (c *checkRun) file(name string) string { return "out/" + c.e.Name + "/" + name }

// deployIAM is the command that deploys the bundle's IAM (the template,
// or the Terraform module, holds every role, policy, queue and rule),
// through what holds it now: where the capture says the stack does not
// exist and the profile says Terraform owns the cluster, or the
// controller role exists all the same, the IAM is not the stack's, and
// deploying the template would create each name a second time.
func (c *checkRun) deployIAM() string {
	if c.iamOutsideStack() {
		return escape.ShellJoin("terraform", "-chdir="+path.Dir(c.file(model.FileTerraform)), "apply") +
			" (stack " + c.e.Names.Stack + " does not exist: the module holds this IAM; never deploy the template beside it)"
	}
	return escape.ShellJoin("aws", "cloudformation", "deploy", "--region", c.e.Names.Region, "--template-file", c.file(model.FileCloudFormation),
		"--stack-name", c.e.Names.Stack, "--capabilities", "CAPABILITY_NAMED_IAM")
}

// iamOutsideStack says the capture shows the bundle's IAM is not the
// stack's: the stack does not exist, and Terraform owns the cluster or
// the controller role exists without it.
func (c *checkRun) iamOutsideStack() bool {
	if c.s == nil {
		return false
	}
	describe, _, _ := StackFiles(c.e.Names.Stack)
	var v map[string]any
	found, failed, err := c.s.read(describe, &v)
	if err != nil || !found || failed == nil || failed.Code != "ValidationError" || !strings.Contains(failed.Message, "does not exist") {
		return false
	}
	if c.e.Profile.Cluster.Owners.Terraform != nil {
		return true
	}
	var role iamRole
	found, failed, err = c.s.read("iam-controller-role.json", &role)
	return err == nil && found && failed == nil && role.Role.RoleName != ""
}

// deployController is the fix that installs the controller with the
// bundle's values, run from the repository root: helm upgrade of the
// release, or for an environment Argo CD delivers, a sync of its
// Application.
func (c *checkRun) deployController() string {
	if app := c.e.Application; app != nil {
		return "render and commit " + c.file("") + ", then " + escape.ShellJoin("argocd", "app", "sync", app.Namespace+"/"+app.Name) + " (Argo CD installs the charts)"
	}
	return escape.ShellJoin("helm", "upgrade", "karpenter", generators.ChartRef("karpenter"), "--version", c.e.Version.String(),
		"--namespace", c.e.Names.Namespace, "--values", c.file(model.FileHelmValues))
}
