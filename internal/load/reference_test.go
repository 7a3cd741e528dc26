package load

import (
	"reflect"
	"strings"
	"testing"
)

// TestReference: the field reference reads the schema's types, defaults,
// requirements and comments, walks every field the explainer knows, and
// every section of a profile is described.
func TestReference(t *testing.T) {
	fields, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Field{}
	for _, f := range fields {
		if _, dup := byPath[f.Path]; dup {
			t.Errorf("%s is listed twice", f.Path)
		}
		byPath[f.Path] = f
	}
	for _, want := range []Field{
		{Path: "cluster.accountID", Type: "a 12-digit AWS account ID", Required: true, Doc: "The AWS account of the cluster.", Example: `cluster: accountID: "123456789012"`},
		{Path: "karpenter.auth", Type: `one of "podIdentity", "irsa"`, Default: `"podIdentity"`,
			Doc: "How the controller gets its credentials: EKS Pod Identity, or IRSA (which needs cluster.oidcIssuer)."},
		{Path: "nodePools.*.capacityTypes", Type: `a list of "on-demand", "spot", "reserved"`, Default: `["on-demand"]`,
			Doc: "How instances are bought: on demand, spot, or from capacity reservations."},
		{Path: "nodePools.*.disruption.budgets[].nodes", Type: "a string", Required: true,
			Doc: `How many nodes may be disrupted at once: a count ("2") or a percentage ("10%"; "0" stops it).`, Example: `budgets: [{nodes: "10%"}]`},
		{Path: "nodeClasses.*.subnetSelectorTerms", Type: "a list of structs", Default: "derived from the profile",
			Doc: "Subnets and security groups: by default those with the getting-started discovery tag (karpenter.sh/discovery: the cluster's name); a class's own terms replace the default whole."},
		{Path: "nodeClasses.*.blockDevices[].volumeType", Type: `one of "gp3", "gp2", "io1", "io2", "sc1", "st1", "standard"`, Default: `"gp3"`,
			Doc: "EBS volume type; iops and throughput for gp3, io1 and io2."},
	} {
		if got := byPath[want.Path]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", want.Path, got, want)
		}
	}
	patterns, required := schemaFields(t)
	for shape := range patterns {
		// A list of patterned strings is one row, which says what its
		// elements are.
		if list, ok := strings.CutSuffix(shape, ".*"); ok && hasShape(byPath, list) {
			continue
		}
		if !hasShape(byPath, shape) {
			t.Errorf("the reference misses %s, which has a pattern", shape)
		}
	}
	for _, shape := range required {
		if !hasShape(byPath, shape) || !byPath[fromShape(byPath, shape)].Required {
			t.Errorf("the reference does not say %s is required", shape)
		}
	}
	for _, f := range fields {
		if !strings.Contains(f.Path, ".") && f.Doc == "" {
			t.Errorf("section %s has no description in the schema", f.Path)
		}
	}
}

// hasShape finds an explainer's shape ("nodePools.*.taints.*.key", where
// list elements are * too) among the reference's paths.
func hasShape(byPath map[string]Field, shape string) bool { return fromShape(byPath, shape) != "" }

func fromShape(byPath map[string]Field, shape string) string {
	for p := range byPath {
		if strings.ReplaceAll(p, "[]", ".*") == shape {
			return p
		}
	}
	return ""
}
