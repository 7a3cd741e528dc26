package manifest

import (
	"reflect"
	"strings"
	"testing"
)

const stream = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: karpenter
  namespace: kube-system
---
# a comment only
`

func TestAllReadsEveryDocument(t *testing.T) {
	hs, err := All[Header]([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hs {
		got = append(got, strings.Join([]string{h.Group(), h.Kind, h.Metadata.Namespace, h.Metadata.Name}, "|"))
	}
	want := []string{"karpenter.sh|NodePool||general", "|ServiceAccount|kube-system|karpenter", "|||"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("headers:\n got %q\nwant %q", got, want)
	}
}

func TestHeaderInline(t *testing.T) {
	type pool struct {
		Header `yaml:",inline"`
		Spec   struct {
			Weight int `yaml:"weight"`
		} `yaml:"spec"`
	}
	ps, err := All[pool]([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec: {weight: 7}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Kind != "NodePool" || ps[0].Metadata.Name != "a" || ps[0].Spec.Weight != 7 {
		t.Errorf("got %+v", ps)
	}
}

func TestDocumentsStopsAtTheFirstError(t *testing.T) {
	var names []string
	var errs []string
	for h, err := range Documents[Header]([]byte("metadata: {name: a}\n---\nmetadata: [\n---\nmetadata: {name: c}\n")) {
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		names = append(names, h.Metadata.Name)
	}
	if !reflect.DeepEqual(names, []string{"a"}) {
		t.Errorf("documents before the error: %q", names)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "line 3") {
		t.Errorf("errors: %q, want one that names line 3", errs)
	}
	if _, err := All[Header]([]byte("kind: [\n")); err == nil {
		t.Error("All accepted YAML that does not parse")
	}
}

func TestDocumentsStopsWhenTheLoopDoes(t *testing.T) {
	n := 0
	for range Documents[Header]([]byte("kind: A\n---\nkind: B\n---\nkind: C\n")) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("read %d documents, want 2", n)
	}
}
