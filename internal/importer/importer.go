// Package importer turns existing Karpenter manifests — v1alpha5
// Provisioner and v1alpha1 AWSNodeTemplate, v1beta1 and v1 NodePool and
// EC2NodeClass — and optionally the Helm values in use, into a karpgen
// CUE profile that renders back to equivalent v1 objects. It applies the
// v1 migration (policies, expiry, kubelet, nodeClassRef, AMI families,
// the drift gate) and reports, with the source file:line, everything it
// could not carry over or had to change.
package importer

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile/form"
	"github.com/karpgen/karpgen/internal/util/boundyaml"
	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/lazyre"
	"github.com/karpgen/karpgen/internal/util/manifest"
)

// Options name what the manifests do not say.
type Options struct {
	Env               string
	Cluster           string
	Region            string
	Account           string
	KubernetesVersion string
	KarpenterVersion  string
	Namespace         string
	OIDCIssuer        string
	// NodeGroup is the EKS managed node group the controller runs on.
	NodeGroup string
	// Captured is what a capture of the cluster says, nil for none.
	Captured *Captured
}

// Captured is what a capture (karpgen doctor --capture-script) says of
// the cluster: which it is, the Kubernetes minor it runs, and its Pod
// Identity associations. The import adopts what it shows to exist.
type Captured struct {
	// Cluster and ClusterARN are describe-cluster's, in File; Kubernetes
	// is its minor ("1.32"). Each is "" when not captured.
	Cluster, ClusterARN, Kubernetes string
	File                            string
	Associations                    []CapturedAssociation
	// ServiceAccountRole is the IRSA role ARN the controller's service
	// account is annotated with (eksctl's iamServiceAccounts write it),
	// read from ServiceAccountFile; "" for none.
	ServiceAccountRole, ServiceAccountFile string
	// OIDCIssuer is the cluster's issuer URL, from File.
	OIDCIssuer string
	// NodeGroups are the cluster's managed node groups, by name; nil
	// when the capture lists none.
	NodeGroups []CapturedNodeGroup
	// GettingStarted is the getting-started guide's stack
	// (Karpenter-<cluster>) when the capture shows it exists; nil
	// otherwise.
	GettingStarted *CapturedStack
}

// CapturedNodeGroup is one managed node group of the capture, as
// describe-nodegroup prints it in File: the labels and taints its nodes
// carry, its instance types and its desired size.
type CapturedNodeGroup struct {
	Name, File    string
	Labels        map[string]string
	Taints        []form.Taint
	InstanceTypes []string
	Desired       int
}

// CapturedStack is what upstream's getting-started stack holds under
// upstream's logical IDs, read from File: the interruption queue
// (KarpenterInterruptionQueue) and the node role (KarpenterNodeRole) by
// name, "" for what it does not hold.
type CapturedStack struct {
	Name, File      string
	Queue, NodeRole string
}

// CapturedAssociation is one Pod Identity association of the capture,
// read from File.
type CapturedAssociation struct {
	ID, Namespace, ServiceAccount, RoleARN, File string
}

// Input is one file to read.
type Input struct {
	Name string
	Data []byte
}

// Result is the profile and the findings: what the import changed on the
// way to v1 or could not carry over, each a note at its input position
// with a rule ID (import/...).
type Result struct {
	CUE      []byte
	Findings []diag.Finding
	// Origins are where the profile's fields came from in the input, for
	// Locate.
	Origins []Origin
}

// importer builds the profile in the profile's own types (form) while
// it reads.
type importer struct {
	opts  Options
	notes []diag.Finding
	pools map[string]*form.NodePool
	// objects are the pools and classes read, by family and name.
	objects map[string]objectSeen
	// preV1 is where the first object of the v1alpha5 or v1beta1 APIs
	// was read, when one was.
	preV1   diag.Pos
	classes map[string]*form.NodeClass
	// kubelets are the kubelet settings pools carried, by pool.
	kubelets  map[string]kubeletSource
	values    node
	nodeRoles map[string]diag.Pos // role -> where
	// first is the start of the first input, for what no line says.
	first diag.Pos
	// version is the Karpenter version the profile takes.
	version string
	// origins are where the profile's fields came from, by path (place).
	origins map[string]Origin
	// irsaFile is the capture file that named the controller's IRSA
	// role, when the Helm values did not.
	irsaFile string
}

type kubeletSource struct {
	value map[string]any
	pos   diag.Pos
}

// note reports what the import changed or dropped, as a finding of rule
// import/<rule> at pos.
func (im *importer) note(rule string, pos diag.Pos, format string, args ...any) {
	im.notes = append(im.notes, diag.Finding{Rule: "import/" + rule, Severity: diag.Note, Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// warn reports a change import had to make that Karpenter acts on (a
// value that enters a drift hash, say).
func (im *importer) warn(rule string, pos diag.Pos, format string, args ...any) {
	im.notes = append(im.notes, diag.Finding{Rule: "import/" + rule, Severity: diag.Warning, Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// Import reads manifests and, when values is not nil, the Helm values.
func Import(manifests []Input, values *Input, opts Options) (*Result, error) {
	im := &importer{opts: opts, pools: map[string]*form.NodePool{}, classes: map[string]*form.NodeClass{}, objects: map[string]objectSeen{},
		kubelets: map[string]kubeletSource{}, nodeRoles: map[string]diag.Pos{}}
	if len(manifests) > 0 {
		im.first = diag.Pos{File: manifests[0].Name, Line: 1, Col: 1}
	}
	for _, in := range append(slices.Clone(manifests), valuesList(values)...) {
		// Nested anchors would expand past any memory before a walk ends.
		if err := boundyaml.Check(in.Name, in.Data); err != nil {
			return nil, err
		}
		// A key given twice or a tag would be read as less than it says.
		if err := boundyaml.Strict(in.Name, in.Data); err != nil {
			return nil, err
		}
		if err := placeholders(in); err != nil {
			return nil, err
		}
	}
	for _, in := range manifests {
		if err := im.readManifests(in); err != nil {
			return nil, err
		}
	}
	if len(im.pools) == 0 && len(im.classes) == 0 {
		return nil, errors.New("no Provisioner, AWSNodeTemplate, NodePool or EC2NodeClass in the input")
	}
	if values != nil {
		var root yaml.Node
		if err := yaml.Unmarshal(values.Data, &root); err != nil {
			return nil, fmt.Errorf("%s: %w", values.Name, err)
		}
		if len(root.Content) > 0 {
			im.values = node{values.Name, root.Content[0]}
		}
	}
	im.applyKubelets()
	env, err := im.environment()
	if err != nil {
		return nil, err
	}
	if values != nil {
		im.checkValues(*values)
	}
	src, err := im.cue(env)
	if err != nil {
		return nil, err
	}
	return &Result{CUE: src, Findings: diag.Sort(slices.Clone(im.notes)), Origins: im.originsOf()}, nil
}

func (im *importer) readManifests(in Input) error {
	for doc, err := range manifest.Documents[yaml.Node](in.Data) {
		if err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		resolveAliases(doc.Content[0], map[*yaml.Node]bool{})
		if err := im.object(node{in.Name, doc.Content[0]}); err != nil {
			return err
		}
	}
	return nil
}

func valuesList(v *Input) []Input {
	if v == nil {
		return nil
	}
	return []Input{*v}
}

// placeholderRE finds what templates and docs leave to be filled in:
// ${Name} (CloudFormation, shell), <<NAME>> and <name> (docs), and
// REPLACE_ME / CHANGE_ME / YOUR_... words.
var placeholderRE = lazyre.New(`\$\{[A-Za-z][A-Za-z0-9_:.-]*\}|<[a-z][a-z0-9-]*(?:-[a-z0-9]+)*>|` + scriptPlaceholders)

// scriptPlaceholders are the placeholders that are one inside a script
// too, where ${VAR} is the shell's.
const scriptPlaceholders = `<<[A-Za-z_][A-Za-z0-9_-]*>>|\b(?:REPLACE_?ME|CHANGE_?ME|YOUR_[A-Z0-9_]+)\b`

// placeholders refuses an input that still holds a placeholder in a key
// or value: imported as it is, it would name a role or a cluster that does
// not exist. userData is a script: ${VAR} is shell there, and only the
// <<NAME>> and REPLACE_ME kinds count.
func placeholders(in Input) error {
	for doc, err := range manifest.Documents[yaml.Node](in.Data) {
		if err != nil {
			return nil // the reader reports what does not parse
		}
		if err := placeholderIn(in.Name, &doc, false); err != nil {
			return err
		}
	}
	return nil
}

// shellRE is what counts as a placeholder inside a script.
var shellRE = lazyre.New(scriptPlaceholders)

func placeholderIn(file string, n *yaml.Node, script bool) error {
	switch n.Kind {
	case yaml.ScalarNode:
		re := placeholderRE
		if script {
			re = shellRE
		}
		for i, line := range strings.Split(n.Value, "\n") {
			if loc := re().FindStringIndex(line); loc != nil {
				lineNo, col := n.Line+i, n.Column+loc[0]
				if i > 0 || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
					lineNo, col = n.Line+i+1, loc[0]+1
				}
				return fmt.Errorf("%s:%d:%d: %s is a placeholder: fill it in before importing", file, lineNo, col, line[loc[0]:loc[1]])
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := placeholderIn(file, n.Content[i], false); err != nil {
				return err
			}
			if err := placeholderIn(file, n.Content[i+1], script || n.Content[i].Value == "userData"); err != nil {
				return err
			}
		}
	default:
		for _, c := range n.Content {
			if err := placeholderIn(file, c, script); err != nil {
				return err
			}
		}
	}
	return nil
}

// object imports one object; a List (kubectl get -o yaml) is its items.
// An object named like one read before (a pool, whether Provisioner or
// NodePool, or a class, whether AWSNodeTemplate or EC2NodeClass) is an
// error naming both: the cluster holds one object of a name, and keeping
// either silently imports what the team may not run.
func (im *importer) object(d node) error {
	apiVersion, kind, name := d.get("apiVersion").str(), d.get("kind").str(), d.get("metadata", "name").str()
	if family := objectFamily(kind); family != "" {
		key := family + "/" + name
		if first, dup := im.objects[key]; dup {
			return fmt.Errorf("%s: %s %s is defined twice: first at %s (%s); a profile holds one %s of a name: keep the one the cluster runs", d.pos(), kind, escape.Terminal(name), first.pos, first.kind, familyWords[family])
		}
		im.objects[key] = objectSeen{kind, d.pos()}
	}
	switch {
	case kind == "List" && apiVersion == "v1" || strings.HasSuffix(kind, "List") && d.get("items").ok():
		for _, item := range d.get("items").list() {
			if err := im.object(item); err != nil {
				return err
			}
		}
	case kind == "Provisioner" && apiVersion == "karpenter.sh/v1alpha5":
		im.clusterScoped(d, kind)
		im.markPreV1(d)
		im.provisioner(d, name)
	case kind == "AWSNodeTemplate" && apiVersion == "karpenter.k8s.aws/v1alpha1":
		im.clusterScoped(d, kind)
		im.markPreV1(d)
		im.nodeTemplate(d, name)
	case kind == "NodePool" && (apiVersion == "karpenter.sh/v1beta1" || apiVersion == "karpenter.sh/v1"):
		im.clusterScoped(d, kind)
		if apiVersion == "karpenter.sh/v1beta1" {
			im.markPreV1(d)
		}
		im.nodePool(d, name, apiVersion == "karpenter.sh/v1beta1")
	case kind == "EC2NodeClass" && (apiVersion == "karpenter.k8s.aws/v1beta1" || apiVersion == "karpenter.k8s.aws/v1"):
		im.clusterScoped(d, kind)
		if apiVersion == "karpenter.k8s.aws/v1beta1" {
			im.markPreV1(d)
		}
		im.nodeClass(d, name, apiVersion == "karpenter.k8s.aws/v1beta1")
	case kind == "" && apiVersion == "":
	default:
		im.note("skipped-document", d.pos(), "%s %s (%s) is not a Karpenter object karpgen imports; skipped", kind, name, apiVersion)
	}
	return nil
}

// markPreV1 records the first object of an API before v1: such a
// cluster joined its nodes through aws-auth.
func (im *importer) markPreV1(d node) {
	if !im.preV1.IsValid() {
		im.preV1 = d.pos()
	}
}

// objectSeen is where an object of a name was first read.
type objectSeen struct {
	kind string
	pos  diag.Pos
}

// familyWords name each family in messages.
var familyWords = map[string]string{"pool": "node pool", "class": "node class"}

// objectFamily is what an object of kind becomes in the profile: a pool
// or a class; "" for anything else.
func objectFamily(kind string) string {
	switch kind {
	case "Provisioner", "NodePool":
		return "pool"
	case "AWSNodeTemplate", "EC2NodeClass":
		return "class"
	}
	return ""
}

// clusterScoped notes a namespace on an object that has none.
func (im *importer) clusterScoped(d node, kind string) {
	if ns := d.get("metadata", "namespace"); ns.str() != "" {
		im.note("namespace", d.get("metadata").keyPos("namespace"), "%s is cluster-scoped: metadata.namespace %q is ignored", kind, ns.str())
	}
}

// resolveAliases replaces YAML aliases by what they point to, and expands
// merge keys (<<), so that an aliased taint list or requirement list is
// read like a written one. Each node is visited once: aliases share
// nodes, and a document of nested aliases must not cost exponential time.
func resolveAliases(n *yaml.Node, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			n.Content[i] = c.Alias
		}
	}
	if n.Kind == yaml.MappingNode {
		var out []*yaml.Node
		var merged []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "<<" && n.Content[i].Tag == "!!merge" {
				v := n.Content[i+1]
				if v.Kind == yaml.SequenceNode {
					merged = append(merged, v.Content...)
				} else {
					merged = append(merged, v)
				}
				continue
			}
			out = append(out, n.Content[i], n.Content[i+1])
		}
		for _, m := range merged {
			if m.Kind == yaml.AliasNode {
				m = m.Alias
			}
			if m == nil || m.Kind != yaml.MappingNode {
				continue
			}
			for i := 0; i+1 < len(m.Content); i += 2 {
				if !hasKey(out, m.Content[i].Value) {
					out = append(out, m.Content[i], m.Content[i+1])
				}
			}
		}
		n.Content = out
	}
	for _, c := range n.Content {
		resolveAliases(c, seen)
	}
}

func hasKey(pairs []*yaml.Node, k string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].Value == k {
			return true
		}
	}
	return false
}

// cue formats the environment as a profiles package, with what the
// import did not carry over as its header.
func (im *importer) cue(env *form.Profile) ([]byte, error) {
	header := []string{"// Imported by karpgen from existing Karpenter manifests."}
	if len(im.notes) > 0 {
		header = append(header, "//", "// Not carried over, or changed on the way to Karpenter v1:")
		for _, n := range diag.Sort(slices.Clone(im.notes)) {
			header = append(header, "//   - "+escape.Comment(n.Pos.String()+": "+n.Message+" ["+n.Rule+"]"))
		}
	}
	out, err := form.File(header, im.opts.Env, env)
	if err != nil {
		return nil, fmt.Errorf("formatting the profile: %w", err)
	}
	return out, nil
}

// checkValues reports, as vet --values does, what of the values in use
// the chart of the version the profile takes does not have; what the
// import already noted at the same place is not said twice.
func (im *importer) checkValues(in Input) {
	minor, err := model.MinorOf(im.version)
	if err != nil {
		return
	}
	noted := map[diag.Pos]bool{}
	for _, n := range im.notes {
		noted[n.Pos] = true
	}
	for _, f := range lint.CheckValues(in.Name, in.Data, minor) {
		if noted[f.Pos] {
			continue
		}
		f.Severity = diag.Note
		if f.Hint != "" {
			f.Message += " (" + f.Hint + ")"
			f.Hint = ""
		}
		im.notes = append(im.notes, f)
	}
}
