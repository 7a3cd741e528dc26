// Package iameval decides whether AWS allows a request, from the policies
// that apply to it, as AWS's documented policy evaluation logic does for a
// principal of the same account: an explicit deny in any policy wins;
// every level of the organization's service control policies must allow;
// resource control policies may deny; a permissions boundary, when there
// is one, must allow; and an identity policy must allow.
//
// It reads Action/NotAction, Resource/NotResource with wildcards, every
// condition operator family (String*, Arn*, Numeric*, Date*, Bool,
// IpAddress, Null), ...IfExists, the ForAnyValue:/ForAllValues: set
// qualifiers and policy variables. What it does not evaluate (a Principal
// element outside a resource control policy, Binary conditions, unknown
// operators) is an error when a policy is read, never an allow or a deny.
package iameval

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Policy is one policy document.
type Policy struct {
	// Name says where it comes from, for the decision's explanation.
	Name       string
	Statements []Statement
	// Version is the policy language version as written ("" when the
	// document has none).
	Version string
}

// VariablesVersion is the policy language version that has policy
// variables: in a document of another version, or of none, AWS takes
// ${...} as the literal text it is.
const VariablesVersion = "2012-10-17"

// Statement is one statement of a policy.
type Statement struct {
	Sid    string
	Effect string // "Allow" or "Deny"
	// Index is its place in the policy, from 0; Line and Col where it
	// starts in the document.
	Index, Line, Col int
	// Actions or NotActions; Resources or NotResources (one of each is
	// set; NotResource without Resource is possible).
	Actions, NotActions     []string
	Resources, NotResources []string
	// Principal is "*" for a resource control policy's statement.
	Principal  string
	Conditions []Condition
	// Literal says ${...} in the statement is text, not a policy
	// variable (its document is not of VariablesVersion).
	Literal bool
}

// Condition is one operator and key of a Condition block.
type Condition struct {
	// Operator is as written ("ForAllValues:StringLikeIfExists").
	Operator string
	Key      string
	Values   []string
	// Literal: as the statement's Literal.
	Literal bool
}

// Parse reads a policy document. allowPrincipal accepts a Principal "*"
// (resource control policies); any other principal is an error, as are
// constructs the evaluator does not implement.
func Parse(name string, data []byte, allowPrincipal bool) (*Policy, error) {
	var doc struct {
		Version   string          `json:"Version"`
		Statement json.RawMessage `json:"Statement"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		e := &Error{Policy: name, Err: err}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			e.Line, e.Col = Position(data, max(syn.Offset-1, 0)) // Offset counts the offending byte
		}
		return nil, e
	}
	var raws []map[string]json.RawMessage
	if len(doc.Statement) > 0 && doc.Statement[0] == '{' {
		var one map[string]json.RawMessage
		if err := json.Unmarshal(doc.Statement, &one); err != nil {
			return nil, &Error{Policy: name, Err: fmt.Errorf("Statement: %w", err)}
		}
		raws = []map[string]json.RawMessage{one}
	} else if err := json.Unmarshal(doc.Statement, &raws); err != nil {
		return nil, &Error{Policy: name, Err: fmt.Errorf("the Statement is neither an object nor a list of them")}
	}
	if doc.Version != "" && doc.Version != VariablesVersion && doc.Version != "2008-10-17" {
		return nil, &Error{Policy: name, Err: fmt.Errorf("the Version %q is not a policy language version", doc.Version)}
	}
	if allowPrincipal && doc.Version != VariablesVersion {
		return nil, &Error{Policy: name, Err: fmt.Errorf("a resource control policy must have \"Version\": %q, as AWS requires", VariablesVersion)}
	}
	p := &Policy{Name: name, Version: doc.Version}
	starts := statementStarts(data)
	for i, raw := range raws {
		st, err := parseStatement(raw, allowPrincipal)
		if i < len(starts) {
			st.Line, st.Col = Position(data, starts[i])
		}
		if err != nil {
			return nil, &Error{Policy: name, Line: st.Line, Col: st.Col, Err: fmt.Errorf("statement %d: %w", i, err)}
		}
		st.Index = i
		st.Literal = doc.Version != VariablesVersion
		for j := range st.Conditions {
			st.Conditions[j].Literal = st.Literal
		}
		p.Statements = append(p.Statements, st)
	}
	return p, nil
}

// Error is a document that cannot be evaluated, at its position (Line 0
// when unknown).
type Error struct {
	Policy    string
	Line, Col int
	Err       error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Policy, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// Position turns a byte offset of a document into its line and column.
func Position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = 1 + strings.Count(string(before), "\n")
	col = int(offset) - strings.LastIndexByte(string(before), '\n')
	return line, col
}

// statementStarts finds where each statement of a document starts.
func statementStarts(data []byte) []int64 {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "Statement" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		next := skipSpace(data, dec.InputOffset())
		if next < int64(len(data)) && data[next] == '{' {
			return []int64{next}
		}
		if _, err := dec.Token(); err != nil { // [
			return nil
		}
		var out []int64
		for dec.More() {
			start := skipSpace(data, dec.InputOffset())
			if start < int64(len(data)) && data[start] == ',' {
				start = skipSpace(data, start+1)
			}
			out = append(out, start)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return out
			}
		}
		return out
	}
	return nil
}

func skipSpace(data []byte, i int64) int64 {
	for i < int64(len(data)) && strings.ContainsRune(" \t\r\n:", rune(data[i])) {
		i++
	}
	return i
}

func parseStatement(raw map[string]json.RawMessage, allowPrincipal bool) (Statement, error) {
	var st Statement
	for key, v := range raw {
		var err error
		switch key {
		case "Sid":
			err = json.Unmarshal(v, &st.Sid)
		case "Effect":
			err = json.Unmarshal(v, &st.Effect)
		case "Action":
			st.Actions, err = stringOrList(v)
		case "NotAction":
			st.NotActions, err = stringOrList(v)
		case "Resource":
			st.Resources, err = stringOrList(v)
		case "NotResource":
			st.NotResources, err = stringOrList(v)
		case "Principal":
			var s string
			if json.Unmarshal(v, &s) != nil || s != "*" || !allowPrincipal {
				return st, fmt.Errorf("a Principal other than \"*\" in a resource control policy is not evaluated")
			}
			st.Principal = s
		case "Condition":
			st.Conditions, err = parseConditions(v)
		default:
			return st, fmt.Errorf("element %q is not evaluated", key)
		}
		if err != nil {
			return st, fmt.Errorf("%s: %w", key, err)
		}
	}
	switch {
	case st.Effect != "Allow" && st.Effect != "Deny":
		return st, fmt.Errorf("the Effect %q is neither Allow nor Deny", st.Effect)
	case (st.Actions == nil) == (st.NotActions == nil):
		return st, fmt.Errorf("a statement has Action or NotAction, not both or neither")
	case st.Resources != nil && st.NotResources != nil:
		return st, fmt.Errorf("a statement has Resource or NotResource, not both")
	case st.Resources == nil && st.NotResources == nil:
		st.Resources = []string{"*"} // SCPs may leave Resource out
	}
	if allowPrincipal && st.Effect == "Allow" {
		// AWS takes an Allow in a resource control policy only as
		// RCPFullAWSAccess has it, which every root, OU and account
		// holds: it lets every request through to the other policies.
		if st.Principal != "*" || !slices.Equal(st.Actions, []string{"*"}) || !slices.Equal(st.Resources, []string{"*"}) || len(st.Conditions) > 0 {
			return st, fmt.Errorf("a resource control policy allows only as RCPFullAWSAccess does (Principal, Action and Resource \"*\", no Condition)")
		}
		return st, nil
	}
	if allowPrincipal {
		// A resource control policy denies actions of the services it
		// covers, named; AWS refuses one that does otherwise.
		switch {
		case st.NotActions != nil:
			return st, fmt.Errorf("a resource control policy takes Action, not NotAction")
		case slices.Contains(st.Actions, "*"):
			return st, fmt.Errorf("a resource control policy's Action cannot be \"*\"")
		}
	}
	slices.SortFunc(st.Conditions, func(a, b Condition) int {
		return strings.Compare(a.Operator+"\x00"+a.Key, b.Operator+"\x00"+b.Key)
	})
	return st, nil
}

func stringOrList(v json.RawMessage) ([]string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{s}, nil
	}
	var l []string
	if err := json.Unmarshal(v, &l); err != nil {
		return nil, fmt.Errorf("neither a string nor a list of strings")
	}
	return l, nil
}

// scalarList reads a condition value: strings, numbers and booleans,
// alone or in a list, as their text.
func scalarList(v json.RawMessage) ([]string, error) {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return nil, err
	}
	items, ok := x.([]any)
	if !ok {
		items = []any{x}
	}
	var out []string
	for _, it := range items {
		switch it := it.(type) {
		case string:
			out = append(out, it)
		case float64, bool:
			b, _ := json.Marshal(it)
			out = append(out, string(b))
		default:
			return nil, fmt.Errorf("a condition value must be a string, number or boolean")
		}
	}
	return out, nil
}

func parseConditions(v json.RawMessage) ([]Condition, error) {
	var block map[string]map[string]json.RawMessage
	if err := json.Unmarshal(v, &block); err != nil {
		return nil, fmt.Errorf("not an object of operators")
	}
	var out []Condition
	for op, keys := range block {
		if _, err := parseOperator(op); err != nil {
			return nil, err
		}
		for key, raw := range keys {
			vals, err := scalarList(raw)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", op, key, err)
			}
			out = append(out, Condition{Operator: op, Key: key, Values: vals})
		}
	}
	return out, nil
}
