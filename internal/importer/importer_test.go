package importer_test

import (
	"testing"

	"github.com/karpgen/karpgen/internal/importer"
)

const v1beta1 = `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        name: default
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["spot"]
  disruption:
    consolidationPolicy: WhenUnderutilized
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2
  role: KarpenterNodeRole-ws
  subnetSelectorTerms:
  - tags:
      karpenter.sh/discovery: ws
`

// FuzzImport feeds mutated manifests and values to the importer: it never
// panics; it either refuses the input with an error or returns a profile,
// and every finding it reports has a rule, a message and a file.
func FuzzImport(f *testing.F) {
	f.Add(v1beta1, "settings:\n  clusterName: ws\n")
	f.Add("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: a}\nspec: {ttlSecondsAfterEmpty: 30}\n", "")
	f.Add("a: &x [1]\nb: *x\n", "x: *y")
	f.Add("kind: List\nitems: []\n", "settings: {featureGates: {drift: false}}")
	f.Fuzz(func(t *testing.T, manifests, values string) {
		opts := importer.Options{Env: "imported", Cluster: "ws", Region: "us-east-1", Account: "444455556666"}
		var vals *importer.Input
		if values != "" {
			vals = &importer.Input{Name: "values.yaml", Data: []byte(values)}
		}
		res, err := importer.Import([]importer.Input{{Name: "in.yaml", Data: []byte(manifests)}}, vals, opts)
		if err != nil {
			if err.Error() == "" {
				t.Error("an error without a message")
			}
			return
		}
		if len(res.CUE) == 0 {
			t.Error("no profile and no error")
		}
		for _, fd := range res.Findings {
			if fd.Rule == "" || fd.Message == "" || fd.Pos.File == "" {
				t.Errorf("finding without rule, message or file: %+v", fd)
			}
		}
	})
}
