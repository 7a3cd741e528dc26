// Package importer turns existing Karpenter manifests — v1alpha5
// Provisioner and v1alpha1 AWSNodeTemplate, v1beta1 and v1 NodePool and
// EC2NodeClass — and optionally the Helm values in use, into a karpgen
// CUE profile that renders back to equivalent v1 objects. It applies the
// v1 migration (policies, expiry, kubelet, nodeClassRef, AMI families,
// the drift gate) and reports, with the source file:line, everything it
// could not carry over or had to change.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue/format"
	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/diag"
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
}

// importer collects the profile as plain values while it reads.
type importer struct {
	opts    Options
	notes   []diag.Finding
	pools   map[string]map[string]any
	classes map[string]map[string]any
	// kubelets are the kubelet settings pools carried, by node class.
	kubelets  map[string]kubeletSource
	values    node
	nodeRoles map[string]diag.Pos // role -> where
}

type kubeletSource struct {
	value any
	pos   diag.Pos
	pool  string
}

// note reports what the import changed or dropped, as a finding of rule
// import/<rule> at pos.
func (im *importer) note(rule string, pos diag.Pos, format string, args ...any) {
	im.notes = append(im.notes, diag.Finding{Rule: "import/" + rule, Severity: diag.Note, Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// Import reads manifests and, when values is not nil, the Helm values.
func Import(manifests []Input, values *Input, opts Options) (*Result, error) {
	im := &importer{opts: opts, pools: map[string]map[string]any{}, classes: map[string]map[string]any{},
		kubelets: map[string]kubeletSource{}, nodeRoles: map[string]diag.Pos{}}
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
	src, err := im.cue(env)
	if err != nil {
		return nil, err
	}
	return &Result{CUE: src, Findings: diag.Sort(slices.Clone(im.notes))}, nil
}

// writeCUE writes plain values as CUE: structs with sorted fields, lists
// of scalars on one line, lists of structs one element a line.
func writeCUE(b *bytes.Buffer, v any, indent int) error {
	tab := strings.Repeat("\t", indent)
	switch v := v.(type) {
	case map[string]any:
		b.WriteString("{\n")
		for _, k := range sortedKeys(v) {
			b.WriteString(tab + "\t" + cueLabel(k) + ": ")
			if err := writeCUE(b, v[k], indent+1); err != nil {
				return err
			}
			b.WriteString("\n")
		}
		b.WriteString(tab + "}")
	case map[string]map[string]any:
		m := map[string]any{}
		for k, x := range v {
			m[k] = x
		}
		return writeCUE(b, m, indent)
	case map[string]string:
		m := map[string]any{}
		for k, x := range v {
			m[k] = x
		}
		return writeCUE(b, m, indent)
	case []any:
		scalars := true
		for _, x := range v {
			switch x.(type) {
			case map[string]any, []any, map[string]string:
				scalars = false
			}
		}
		if scalars {
			b.WriteString("[")
			for i, x := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := writeCUE(b, x, indent); err != nil {
					return err
				}
			}
			b.WriteString("]")
			return nil
		}
		b.WriteString("[\n")
		for _, x := range v {
			b.WriteString(tab + "\t")
			if err := writeCUE(b, x, indent+1); err != nil {
				return err
			}
			b.WriteString(",\n")
		}
		b.WriteString(tab + "]")
	case []string:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = x
		}
		return writeCUE(b, l, indent)
	case []int:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = x
		}
		return writeCUE(b, l, indent)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(data)
	}
	return nil
}

var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func cueLabel(k string) string {
	if identifier.MatchString(k) {
		return k
	}
	data, _ := json.Marshal(k)
	return string(data)
}

func (im *importer) readManifests(in Input) error {
	dec := yaml.NewDecoder(bytes.NewReader(in.Data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		d := node{in.Name, doc.Content[0]}
		apiVersion, kind, name := d.get("apiVersion").str(), d.get("kind").str(), d.get("metadata", "name").str()
		switch {
		case kind == "Provisioner" && apiVersion == "karpenter.sh/v1alpha5":
			im.provisioner(d, name)
		case kind == "AWSNodeTemplate" && apiVersion == "karpenter.k8s.aws/v1alpha1":
			im.nodeTemplate(d, name)
		case kind == "NodePool" && (apiVersion == "karpenter.sh/v1beta1" || apiVersion == "karpenter.sh/v1"):
			im.nodePool(d, name, apiVersion == "karpenter.sh/v1beta1")
		case kind == "EC2NodeClass" && (apiVersion == "karpenter.k8s.aws/v1beta1" || apiVersion == "karpenter.k8s.aws/v1"):
			im.nodeClass(d, name, apiVersion == "karpenter.k8s.aws/v1beta1")
		case kind == "" && apiVersion == "":
			continue
		default:
			im.note("skipped-document", d.pos(), "%s %s (%s) is not a Karpenter object karpgen imports; skipped", kind, name, apiVersion)
		}
	}
}

// cue formats the environment as a profiles package.
func (im *importer) cue(env map[string]any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Imported by karpgen from existing Karpenter manifests.\n")
	if len(im.notes) > 0 {
		b.WriteString("//\n// Not carried over, or changed on the way to Karpenter v1:\n")
		for _, n := range diag.Sort(slices.Clone(im.notes)) {
			b.WriteString("//   - " + n.Pos.String() + ": " + strings.ReplaceAll(n.Message, "\n", " ") + " [" + n.Rule + "]\n")
		}
	}
	b.WriteString("package profiles\n\nenvironments: ")
	if err := writeCUE(&b, map[string]any{im.opts.Env: env}, 0); err != nil {
		return nil, err
	}
	b.WriteString("\n")
	out, err := format.Source(b.Bytes(), format.Simplify())
	if err != nil {
		return nil, fmt.Errorf("formatting the profile: %w", err)
	}
	return out, nil
}
