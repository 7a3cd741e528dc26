// Package cfnpreview says what deploying a template to a stack does to
// the resources the stack holds now, by CloudFormation's update rules:
// a resource the new template no longer names is deleted (unless its
// DeletionPolicy retains it); a changed property that requires
// replacement replaces it, and a custom-named resource cannot be
// replaced under the same name, so the update fails; a new resource whose
// name another resource already holds fails, since CloudFormation
// creates before it deletes. It reads templates as the stack's
// get-template prints them (YAML with short-form functions, or JSON)
// and the stack's resources as describe-stack-resources lists them.
package cfnpreview

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/util/boundyaml"
)

// Resource is one resource of a template.
type Resource struct {
	Type           string         `json:"Type"`
	Properties     map[string]any `json:"Properties"`
	DeletionPolicy string         `json:"DeletionPolicy"`
}

// Template is a template's resources by logical ID, and its parameters'
// defaults.
type Template struct {
	Resources  map[string]Resource
	Parameters map[string]string
}

// Parse reads a template: JSON, or YAML whose short-form functions
// (!Sub, !GetAtt, !Ref, ...) become their long forms. name is for
// errors.
func Parse(name string, body []byte) (*Template, error) {
	if err := boundyaml.Check(name, body); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a template: %v", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: an empty template", name)
	}
	root, err := longForm(doc.Content[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var raw struct {
		Resources  map[string]Resource `json:"Resources"`
		Parameters map[string]struct {
			Default any `json:"Default"`
		} `json:"Parameters"`
	}
	data, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a template: %v", name, err)
	}
	if len(raw.Resources) == 0 {
		return nil, fmt.Errorf("%s: a template without resources", name)
	}
	t := &Template{Resources: raw.Resources, Parameters: map[string]string{}}
	for k, p := range raw.Parameters {
		if p.Default != nil {
			t.Parameters[k] = fmt.Sprint(p.Default)
		}
	}
	for id, r := range t.Resources {
		if r.Type == "" {
			return nil, fmt.Errorf("%s: resource %s has no Type", name, id)
		}
	}
	return t, nil
}

// longForm is a YAML node as JSON values, with CloudFormation's short
// tags written long: !Ref X is {"Ref": X}, !GetAtt A.B is
// {"Fn::GetAtt": [A, B]}, any other !F is {"Fn::F": ...}.
func longForm(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			x, err := longForm(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = x
		}
		v = m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			x, err := longForm(c)
			if err != nil {
				return nil, err
			}
			l = append(l, x)
		}
		v = l
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			v = n.Value
		} else if err := n.Decode(&v); err != nil {
			return nil, err
		}
	case yaml.AliasNode:
		return nil, fmt.Errorf("line %d: an alias, which CloudFormation does not read", n.Line)
	default:
		return nil, fmt.Errorf("line %d: a YAML node of kind %d", n.Line, n.Kind)
	}
	tag := n.Tag
	if !strings.HasPrefix(tag, "!") || strings.HasPrefix(tag, "!!") {
		return v, nil
	}
	fn := tag[1:]
	switch fn {
	case "Ref", "Condition":
		return map[string]any{fn: v}, nil
	case "GetAtt":
		if s, ok := v.(string); ok {
			a, b, _ := strings.Cut(s, ".")
			return map[string]any{"Fn::GetAtt": []any{a, b}}, nil
		}
	}
	return map[string]any{"Fn::" + fn: v}, nil
}
