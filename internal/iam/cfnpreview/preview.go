package cfnpreview

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/keys"
)

// Action is what an update does to one resource.
type Action string

const (
	Add     Action = "add"
	Keep    Action = "keep"
	Modify  Action = "modify"
	Replace Action = "replace"
	Delete  Action = "delete"
	// Retain: the resource leaves the stack and stays in the account
	// (DeletionPolicy Retain).
	Retain Action = "retain"
	// Fails: CloudFormation refuses the update and rolls it back.
	Fails Action = "fails"
)

// Live is one resource the stack holds, as describe-stack-resources
// lists it.
type Live struct {
	Logical, Physical, Type string
}

// Env is what a template's pseudo parameters and parameters resolve to:
// the environment's names (partition, region, account, URL suffix) and
// the stack's.
type Env struct {
	Names     model.Names
	StackName string
	// Parameters are the stack's parameter values (describe-stacks).
	Parameters map[string]string
}

// Change is what the update does to one logical ID.
type Change struct {
	Logical string `json:"logicalId"`
	Type    string `json:"type"`
	// Name is the resource's name (its physical ID's name), when known.
	Name   string `json:"name,omitempty"`
	Action Action `json:"action"`
	// Why says why, for every action but keep and add.
	Why string `json:"why,omitempty"`
	// Harm says what uses a resource the update deletes, replaces or
	// fails on; empty when nothing does.
	Harm string `json:"harm,omitempty"`
}

// identityWhat names what EKS holds one of per key, for the types that
// have no name but a key (identity).
var identityWhat = map[string]string{
	"AWS::EKS::AccessEntry":            "access entry the principal",
	"AWS::EKS::PodIdentityAssociation": "Pod Identity association the service account",
}

// identity is the key EKS allows one resource of a type for: an access
// entry's principal, an association's NAMESPACE/SERVICEACCOUNT; "" for
// other types. Taken holds them under that key.
func identity(r *resolver, res Resource) string {
	switch res.Type {
	case "AWS::EKS::AccessEntry":
		return r.str(res.Properties["PrincipalArn"])
	case "AWS::EKS::PodIdentityAssociation":
		ns, sa := r.str(res.Properties["Namespace"]), r.str(res.Properties["ServiceAccount"])
		if ns != "" && sa != "" {
			return ns + "/" + sa
		}
	}
	return ""
}

// nameProperty is the property that names a resource of a type.
var nameProperty = map[string]string{
	"AWS::IAM::Role":            "RoleName",
	"AWS::IAM::ManagedPolicy":   "ManagedPolicyName",
	"AWS::IAM::InstanceProfile": "InstanceProfileName",
	"AWS::SQS::Queue":           "QueueName",
	"AWS::Events::Rule":         "Name",
}

// replacing are the properties whose change replaces the resource
// ("Update requires: Replacement" in CloudFormation's resource
// reference), for the types a Karpenter stack holds.
var replacing = map[string][]string{
	"AWS::IAM::Role":                   {"RoleName", "Path"},
	"AWS::IAM::ManagedPolicy":          {"ManagedPolicyName", "Path", "Description"},
	"AWS::IAM::InstanceProfile":        {"InstanceProfileName", "Path"},
	"AWS::SQS::Queue":                  {"QueueName", "FifoQueue"},
	"AWS::Events::Rule":                {"Name", "EventBusName"},
	"AWS::EKS::AccessEntry":            {"ClusterName", "PrincipalArn", "Type"},
	"AWS::EKS::PodIdentityAssociation": {"ClusterName", "Namespace", "ServiceAccount"},
}

// uses says what depends on a resource of a type while Karpenter runs:
// every type that holds or grants a permission, and those the
// controller's path to its events runs through. A type not listed is
// one karpgen cannot vouch for (Unvouched).
var uses = map[string]string{
	"AWS::SQS::Queue":                   "the controller reads interruption events from it",
	"AWS::SQS::QueuePolicy":             "EventBridge sends to the queue under it",
	"AWS::IAM::Role":                    "nodes or the controller run with it",
	"AWS::IAM::InstanceProfile":         "nodes launch with it",
	"AWS::IAM::ManagedPolicy":           "the roles it is attached to lose what it allows",
	"AWS::IAM::Policy":                  "the roles it is embedded in lose what it allows",
	"AWS::IAM::RolePolicy":              "the role it is embedded in loses what it allows",
	"AWS::IAM::OIDCProvider":            "the controller's IRSA credentials are exchanged through it",
	"AWS::IAM::ServiceLinkedRole":       "the service it belongs to acts with it (spot launches, for EC2 Spot's)",
	"AWS::KMS::Key":                     "volumes and messages encrypted with it cannot be read without it",
	"AWS::KMS::Alias":                   "what names the key by its alias loses it",
	"AWS::EKS::AccessEntry":             "nodes join the cluster with it",
	"AWS::EKS::AccessPolicyAssociation": "the principal of its access entry loses what it allows",
	"AWS::EKS::PodIdentityAssociation":  "the controller takes its credentials through it",
	"AWS::Events::Rule":                 "it sends interruption events to the queue",
}

// Unvouched is what a change to a resource of a type karpgen does not
// know says: nothing is assumed harmless.
func Unvouched(typ string) string {
	return "karpgen does not know what uses a resource of type " + typ + ": check that nothing does before the update deletes or replaces it"
}

// harmOf is what uses a resource of a type.
func harmOf(typ string) string {
	if u, ok := uses[typ]; ok {
		return u
	}
	return Unvouched(typ)
}

// Updatable says whether CloudFormation takes an update of a stack in a
// status, and why not: a stack whose last operation is in progress, or
// failed and rolled back from its creation, or whose rollback failed,
// refuses it.
func Updatable(status string) (bool, string) {
	switch status {
	case "", "CREATE_COMPLETE", "UPDATE_COMPLETE", "UPDATE_ROLLBACK_COMPLETE", "IMPORT_COMPLETE", "IMPORT_ROLLBACK_COMPLETE":
		return true, ""
	case "UPDATE_ROLLBACK_FAILED":
		return false, "its last update failed to roll back: CloudFormation refuses every update until aws cloudformation continue-update-rollback succeeds (skipping the resources it cannot roll back)"
	case "ROLLBACK_COMPLETE", "ROLLBACK_FAILED", "CREATE_FAILED":
		return false, "its creation failed and was rolled back: CloudFormation cannot update it; delete it (what it made was removed) and deploy again"
	case "DELETE_FAILED":
		return false, "its deletion failed: CloudFormation refuses updates; finish deleting it, or retain the resources that block it"
	}
	if strings.HasSuffix(status, "_IN_PROGRESS") {
		return false, "an operation on it is in progress (" + status + "): wait for it to end, then plan again from a new capture"
	}
	return false, "CloudFormation does not update a stack in status " + status
}

// Taken says who in the account, outside the stack, holds a name: by
// type, then by the name in lower case (IAM's names are
// case-insensitive).
type Taken map[string]map[string]string

// Compute is what deploying next to a stack that holds old (nil for a
// stack that does not exist yet) with the resources live does.
func Compute(old *Template, live []Live, next *Template, env Env, taken Taken) []Change {
	physical := map[string]string{}
	for _, l := range live {
		physical[l.Logical] = l.Physical
	}
	oldRes := map[string]Resource{}
	if old != nil {
		oldRes = old.Resources
	}
	oldR := resolver{env: env, names: map[string]string{}, types: map[string]string{}}
	if old != nil {
		oldR.params = old.Parameters
	}
	for id, r := range oldRes {
		oldR.types[id] = r.Type
		oldR.names[id] = PhysicalName(r.Type, physical[id])
		if oldR.names[id] == "" {
			oldR.names[id] = oldR.str(r.Properties[nameProperty[r.Type]])
		}
	}
	newR := resolver{env: env, params: next.Parameters, names: map[string]string{}, types: map[string]string{}}
	for id, r := range next.Resources {
		newR.types[id] = r.Type
		if p := nameProperty[r.Type]; r.Properties[p] != nil {
			newR.names[id] = newR.str(r.Properties[p])
		} else if o, ok := oldRes[id]; ok && o.Type == r.Type && o.Properties[p] == nil {
			// Both leave the name to CloudFormation: it keeps the one
			// it generated.
			newR.names[id] = oldR.names[id]
		}
	}
	// Who in the stack holds each name now, by type.
	holder := map[string]string{}
	for id, r := range oldRes {
		if name := oldR.names[id]; name != "" {
			holder[r.Type+"\x00"+strings.ToLower(name)] = id
		}
	}
	var out []Change
	for _, id := range keys.Union(oldRes, next.Resources) {
		o, hadOld := oldRes[id]
		nr, hasNew := next.Resources[id]
		switch {
		case !hasNew:
			c := Change{Logical: id, Type: o.Type, Name: oldR.names[id], Action: Delete, Why: "the template no longer names it"}
			if o.DeletionPolicy == "Retain" || o.DeletionPolicy == "RetainExceptOnCreate" {
				c.Action, c.Why = Retain, "the template no longer names it; DeletionPolicy "+o.DeletionPolicy+" keeps it in the account"
			} else {
				c.Harm = harmOf(o.Type)
			}
			out = append(out, c)
		case !hadOld:
			c := Change{Logical: id, Type: nr.Type, Name: newR.names[id], Action: Add}
			if c.Name != "" {
				key := nr.Type + "\x00" + strings.ToLower(c.Name)
				if h, ok := holder[key]; ok && h != id {
					c.Action, c.Why = Fails, "the stack's "+h+" holds the name "+c.Name+" now, and CloudFormation creates the new resource before it deletes the old one: \"already exists\", and the update rolls back"
				} else if who := taken[nr.Type][strings.ToLower(c.Name)]; who != "" {
					c.Action, c.Why = Fails, who+" holds the name "+c.Name+" already: \"already exists\", and the update rolls back"
				}
			} else if key := identity(&newR, nr); key != "" {
				// Unnamed, but one of a kind per key: EKS holds one access
				// entry per principal and one association per service
				// account.
				if who := taken[nr.Type][strings.ToLower(key)]; who != "" {
					c.Action, c.Why = Fails, who+" is already the one "+identityWhat[nr.Type]+" "+key+" may have: EKS refuses a second (\"already exists\"), and the update rolls back"
				}
			}
			out = append(out, c)
		case o.Type != nr.Type:
			out = append(out, Change{Logical: id, Type: nr.Type, Name: oldR.names[id], Action: Fails,
				Why: "its type changes from " + o.Type + ", which CloudFormation refuses", Harm: harmOf(o.Type)})
		default:
			out = append(out, compare(id, o, nr, &oldR, &newR))
		}
	}
	return out
}

// compare is what an update does to a resource both templates name.
func compare(id string, o, nr Resource, oldR, newR *resolver) Change {
	c := Change{Logical: id, Type: nr.Type, Name: oldR.names[id], Action: Keep}
	nameProp := nameProperty[nr.Type]
	var changed []string
	for _, p := range replacing[nr.Type] {
		var same bool
		if p == nameProp {
			same = newR.names[id] == oldR.names[id]
		} else {
			same = equal(oldR.value(defaulted(p, o.Properties[p])), newR.value(defaulted(p, nr.Properties[p])))
		}
		if !same {
			changed = append(changed, p)
		}
	}
	if len(changed) > 0 {
		c.Harm = harmOf(nr.Type)
		if nameProp != "" && nr.Properties[nameProp] != nil && newR.names[id] == oldR.names[id] {
			c.Action, c.Why = Fails, strings.Join(changed, ", ")+" changes, which replaces it, and CloudFormation cannot replace a custom-named resource under the same name: the update rolls back"
			return c
		}
		c.Action, c.Why = Replace, strings.Join(changed, ", ")+" changes, which replaces it: a new one is created, then "+orName(c.Name)+" is deleted"
		if nameProp != "" && newR.names[id] != oldR.names[id] {
			c.Why += " (new name " + orName(newR.names[id]) + ")"
		}
		return c
	}
	var modified []string
	for _, p := range keys.Union(o.Properties, nr.Properties) {
		if p == nameProp {
			continue
		}
		if !equal(oldR.value(defaulted(p, o.Properties[p])), newR.value(defaulted(p, nr.Properties[p]))) {
			modified = append(modified, p)
		}
	}
	if len(modified) > 0 {
		c.Action, c.Why = Modify, strings.Join(modified, ", ")+" changes, in place"
	}
	return c
}

func orName(s string) string {
	if s == "" {
		return "the old one"
	}
	return s
}

// defaulted is a property's value with CloudFormation's default for the
// properties whose absence means it (Path "/").
func defaulted(p string, v any) any {
	if v == nil && p == "Path" {
		return "/"
	}
	return v
}

// PhysicalName is a resource's name from its physical ID: a managed
// policy's and a queue's are the end of an ARN or URL, a rule on a named
// bus is "bus|name".
func PhysicalName(typ, id string) string {
	switch typ {
	case "AWS::IAM::ManagedPolicy", "AWS::SQS::Queue":
		return id[strings.LastIndex(id, "/")+1:]
	case "AWS::Events::Rule":
		return id[strings.LastIndex(id, "|")+1:]
	}
	return id
}

// equal compares two resolved values as JSON reads them (a number and
// its string are not equal; key order does not matter).
func equal(a, b any) bool {
	na, _ := json.Marshal(a)
	nb, _ := json.Marshal(b)
	var x, y any
	json.Unmarshal(na, &x)
	json.Unmarshal(nb, &y)
	return reflect.DeepEqual(canonicalDoc(x), canonicalDoc(y))
}

// canonicalDoc reads policy documents as IAM does: a one-element list and
// its element are one, and a document given as JSON text is its value.
func canonicalDoc(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = canonicalDoc(e)
		}
		return m
	case []any:
		if len(x) == 1 {
			return canonicalDoc(x[0])
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = canonicalDoc(e)
		}
		return l
	case string:
		if t := strings.TrimSpace(x); strings.HasPrefix(t, "{") {
			var doc any
			if json.Unmarshal([]byte(t), &doc) == nil {
				return canonicalDoc(doc)
			}
		}
	}
	return v
}

// resolver resolves a template's intrinsic functions for comparison: its
// parameters and pseudo parameters to their values, a resource's Ref and
// Arn to what they are for its name, anything else to itself.
type resolver struct {
	env    Env
	params map[string]string
	names  map[string]string // logical ID -> name
	types  map[string]string // logical ID -> type
}

func (r *resolver) str(v any) string {
	s, _ := r.value(v).(string)
	return s
}

func (r *resolver) value(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				if out, ok := r.function(k, arg); ok {
					return out
				}
			}
		}
		m := map[string]any{}
		for k, e := range x {
			m[k] = r.value(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = r.value(e)
		}
		return l
	}
	return v
}

func (r *resolver) function(fn string, arg any) (any, bool) {
	switch fn {
	case "Ref":
		s, _ := arg.(string)
		return r.ref(s), true
	case "Fn::GetAtt":
		var parts []string
		switch a := arg.(type) {
		case []any:
			for _, p := range a {
				parts = append(parts, fmt.Sprint(p))
			}
		case string:
			parts = strings.SplitN(a, ".", 2)
		}
		if len(parts) == 2 {
			return r.attr(parts[0], parts[1]), true
		}
	case "Fn::Sub":
		var text string
		vars := map[string]any{}
		switch a := arg.(type) {
		case string:
			text = a
		case []any:
			if len(a) == 2 {
				text, _ = a[0].(string)
				vars, _ = a[1].(map[string]any)
			}
		}
		return r.sub(text, vars), true
	case "Fn::Join":
		if a, ok := arg.([]any); ok && len(a) == 2 {
			sep, _ := a[0].(string)
			if items, ok := r.value(a[1]).([]any); ok {
				var parts []string
				for _, it := range items {
					s, ok := it.(string)
					if !ok {
						return nil, false
					}
					parts = append(parts, s)
				}
				return strings.Join(parts, sep), true
			}
		}
	}
	return nil, false
}

func (r *resolver) sub(text string, vars map[string]any) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "${")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		rest := text[i+2:]
		if strings.HasPrefix(rest, "!") {
			// ${!Literal} is the text ${Literal}.
			j := strings.Index(rest, "}")
			if j < 0 {
				b.WriteString(text[i:])
				return b.String()
			}
			b.WriteString("${" + rest[1:j+1])
			text = rest[j+1:]
			continue
		}
		j := strings.Index(rest, "}")
		if j < 0 {
			b.WriteString(text[i:])
			return b.String()
		}
		name := rest[:j]
		switch v, ok := vars[name]; {
		case ok:
			b.WriteString(fmt.Sprint(r.value(v)))
		case strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::"):
			id, attr, _ := strings.Cut(name, ".")
			b.WriteString(fmt.Sprint(r.attr(id, attr)))
		default:
			b.WriteString(fmt.Sprint(r.ref(name)))
		}
		text = rest[j+1:]
	}
}

func (r *resolver) ref(name string) any {
	n := r.env.Names
	switch name {
	case "AWS::Region":
		return n.Region
	case "AWS::AccountId":
		return n.Account
	case "AWS::Partition":
		return n.Partition
	case "AWS::URLSuffix":
		return n.URLSuffix
	case "AWS::StackName":
		return r.env.StackName
	}
	if v, ok := r.env.Parameters[name]; ok {
		return v
	}
	if v, ok := r.params[name]; ok {
		return v
	}
	typ, ok := r.types[name]
	held := r.names[name]
	if !ok || held == "" {
		return "{Ref " + name + "}"
	}
	switch typ {
	case "AWS::IAM::ManagedPolicy":
		return r.arn("iam", "", "policy/"+held)
	case "AWS::SQS::Queue":
		return "https://sqs." + n.Region + "." + n.URLSuffix + "/" + n.Account + "/" + held
	}
	return held
}

func (r *resolver) attr(id, attr string) any {
	typ := r.types[id]
	n := r.names[id]
	if attr == "Arn" && n != "" {
		switch typ {
		case "AWS::IAM::Role":
			return r.arn("iam", "", "role/"+n)
		case "AWS::IAM::InstanceProfile":
			return r.arn("iam", "", "instance-profile/"+n)
		case "AWS::SQS::Queue":
			return r.arn("sqs", r.env.Names.Region, n)
		case "AWS::Events::Rule":
			return r.arn("events", r.env.Names.Region, "rule/"+n)
		}
	}
	return "{GetAtt " + id + "." + attr + "}"
}

func (r *resolver) arn(service, region, resource string) string {
	return r.env.Names.ARN(service, region, r.env.Names.Account, resource)
}

// Harmful are the changes that fail the update or delete or replace what
// Karpenter uses (a rule replaced is harmless: its successor exists
// before it goes).
func Harmful(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		switch {
		case c.Action == Fails:
			out = append(out, c)
		case (c.Action == Delete || c.Action == Replace) && c.Harm != "" && !(c.Action == Replace && c.Type == "AWS::Events::Rule"):
			out = append(out, c)
		}
	}
	return out
}

// Counts are how many changes of each action, in the order of the
// actions' weight: "3 kept, 2 modified, 4 replaced".
func Counts(cs []Change) string {
	count := map[Action]int{}
	for _, c := range cs {
		count[c.Action]++
	}
	var parts []string
	for _, a := range []struct {
		a    Action
		word string
	}{{Fails, "failing"}, {Delete, "deleted"}, {Replace, "replaced"}, {Retain, "retained"}, {Add, "added"}, {Modify, "modified"}, {Keep, "kept"}} {
		if count[a.a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[a.a], a.word))
		}
	}
	return strings.Join(parts, ", ")
}
