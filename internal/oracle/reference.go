// Package oracle reads the upstream Karpenter release artifacts the
// repository carries in reference/karpenter (see its SOURCE file and
// hack/refresh-reference.sh) for the conformance tests, and finds the IAM
// policy simulator in test/iamsim. Only tests import it.
package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TB is what the helpers ask of a test (testing.TB has it): the package
// serves tests without being one, so it does not import testing.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Skipf(format string, args ...any)
	Name() string
	TempDir() string
}

// Root is the repository's top folder: the one above the working
// directory (a test runs in its package's folder) whose go.mod is
// karpgen's. It does not ask the source file's path, which -trimpath
// (the one set of build flags make uses) leaves relative.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(data), "module github.com/karpgen/karpgen\n") {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			panic("oracle: " + dir + " is not inside the karpgen repository")
		}
		d = parent
	}
}

// Dir returns the reference folder: the repository's, or
// $KARPGEN_REFERENCE, a folder laid out the same way (as
// hack/refresh-reference.sh writes one), to test against other artifacts. When it is missing
// the test is skipped, or fails under CI=true: an oracle that is absent
// proves nothing.
func Dir(t TB) string {
	t.Helper()
	dir := os.Getenv("KARPGEN_REFERENCE")
	if dir == "" {
		dir = filepath.Join(Root(), "reference", "karpenter")
	}
	if _, err := os.Stat(filepath.Join(dir, "compatibility.yaml")); err != nil {
		Missing(t, "upstream reference data not found at %s: %v", dir, err)
	}
	return dir
}

// Simulator returns the folder of the IAM policy simulator with its
// packages installed (`make iamsim`), with the same rule as Dir when it is
// not ready.
func Simulator(t TB) string {
	t.Helper()
	dir := filepath.Join(Root(), "test", "iamsim")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@cloud-copilot", "iam-simulate")); err != nil {
		Missing(t, "the IAM policy simulator is not installed in %s (run `make iamsim`): %v", dir, err)
	}
	return dir
}

// Missing skips the test for an absent oracle, or fails it under CI=true.
func Missing(t TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	if log := os.Getenv("KARPGEN_SKIPS"); log != "" {
		// make test lists what was skipped once every package ran.
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s: %s\n", t.Name(), strings.SplitN(fmt.Sprintf(format, args...), "\n", 2)[0])
			f.Close()
		}
	}
	t.Skipf(format+" (under CI=true this fails)", args...)
}

// Template is a getting-started CloudFormation template with its
// CloudFormation placeholders filled in.
type Template struct {
	// Policies are the managed policies by their (substituted) names.
	Policies map[string]Policy
	// NodeRolePolicies are the node role's managed policy ARNs.
	NodeRolePolicies []string
	NodeTrust        any
	QueuePolicy      any
	// Rules are the EventBridge rules by logical name: their event pattern.
	Rules map[string]any
	Queue map[string]any
}

// Policy is a managed policy document.
type Policy struct {
	Document map[string]any
}

// Statements returns the policy's statements by Sid.
func (p Policy) Statements() map[string]any {
	out := map[string]any{}
	for _, s := range p.Document["Statement"].([]any) {
		out[s.(map[string]any)["Sid"].(string)] = s
	}
	return out
}

// Vars fill the template's placeholders.
type Vars struct {
	Partition, Region, Account, Cluster, URLSuffix, NodeRoleARN, QueueARN string
}

func (v Vars) replacer() *strings.Replacer {
	return strings.NewReplacer(
		"${AWS::Partition}", v.Partition, "${AWS::Region}", v.Region, "${AWS::AccountId}", v.Account,
		"${AWS::URLSuffix}", v.URLSuffix, "${ClusterName}", v.Cluster,
		"${KarpenterNodeRole.Arn}", v.NodeRoleARN, "${KarpenterInterruptionQueue.Arn}", v.QueueARN,
	)
}

// LoadTemplate reads <dir>/<tag>/cloudformation.yaml.
func LoadTemplate(dir, tag string, v Vars) (*Template, error) {
	data, err := os.ReadFile(filepath.Join(dir, tag, "cloudformation.yaml"))
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	doc := decode(root.Content[0], v)
	res, ok := doc.(map[string]any)["Resources"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: no Resources", tag)
	}
	t := &Template{Policies: map[string]Policy{}, Rules: map[string]any{}}
	for logical, r := range res {
		r := r.(map[string]any)
		props := r["Properties"].(map[string]any)
		switch r["Type"] {
		case "AWS::IAM::ManagedPolicy":
			var d map[string]any
			if err := json.Unmarshal([]byte(props["PolicyDocument"].(string)), &d); err != nil {
				return nil, fmt.Errorf("%s %s: %w", tag, logical, err)
			}
			t.Policies[props["ManagedPolicyName"].(string)] = Policy{Document: d}
		case "AWS::IAM::Role":
			for _, a := range props["ManagedPolicyArns"].([]any) {
				t.NodeRolePolicies = append(t.NodeRolePolicies, a.(string))
			}
			t.NodeTrust = props["AssumeRolePolicyDocument"]
		case "AWS::SQS::QueuePolicy":
			t.QueuePolicy = props["PolicyDocument"]
		case "AWS::SQS::Queue":
			t.Queue = props
		case "AWS::Events::Rule":
			t.Rules[logical] = props["EventPattern"]
		}
	}
	return t, nil
}

// decode turns a YAML node into plain values, resolving !Sub and !GetAtt
// (only the attributes the templates use) with the variables.
func decode(n *yaml.Node, v Vars) any {
	switch n.Tag {
	case "!Sub":
		return v.replacer().Replace(n.Value)
	case "!GetAtt":
		return v.replacer().Replace("${" + n.Value + "}")
	case "!Ref":
		return map[string]any{"Ref": n.Value}
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i < len(n.Content); i += 2 {
			m[n.Content[i].Value] = decode(n.Content[i+1], v)
		}
		return m
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			out = append(out, decode(c, v))
		}
		return out
	case yaml.AliasNode:
		return decode(n.Alias, v)
	}
	var x any
	if err := n.Decode(&x); err != nil {
		return n.Value
	}
	return x
}

// Normalize round-trips a value through JSON, so that generated objects
// and parsed ones compare with the same types.
func Normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
