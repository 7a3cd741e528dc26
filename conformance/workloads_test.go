package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	psaapi "k8s.io/pod-security-admission/api"
	psapolicy "k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/profile"
)

// strict decodes YAML into a typed Kubernetes object, refusing fields the
// type does not have.
func strict(t *testing.T, data []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}

// TestHeadroom: the headroom objects are valid Kubernetes objects whose
// pods preempt nothing, land only on the pool's nodes and tolerate its
// taints.
func TestHeadroom(t *testing.T) {
	v := matrix()[0]
	p := richProfile(v)
	app := p.NodePools["app"]
	app.Headroom = &profile.Headroom{Replicas: 3, CPU: "2", Memory: "4Gi", Image: "registry.k8s.io/pause:3.10"}
	p.NodePools["app"] = app
	b, err := generators.Render(model.Resolve(p))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b.Files["headroom.yaml"]), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("headroom.yaml has %d objects, want a PriorityClass and a Deployment", len(docs))
	}
	var pc schedulingv1.PriorityClass
	strict(t, []byte(docs[0]), &pc)
	if pc.Value >= 0 || pc.GlobalDefault || pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptNever {
		t.Errorf("priority class %+v must be negative, not default, and never preempt", pc)
	}
	var d appsv1.Deployment
	strict(t, []byte(docs[1]), &d)
	if d.Namespace != p.Karpenter.Namespace || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("deployment %s/%s with %v replicas", d.Namespace, d.Name, d.Spec.Replicas)
	}
	sel, err := labels.ValidatedSelectorFromSet(d.Spec.Selector.MatchLabels)
	if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("selector %v does not select the template labels %v", d.Spec.Selector, d.Spec.Template.Labels)
	}
	pod := d.Spec.Template.Spec
	if pod.PriorityClassName != pc.Name {
		t.Errorf("pods use priority class %q, want %q", pod.PriorityClassName, pc.Name)
	}
	// A node of the pool carries its labels and karpenter.sh/nodepool.
	node := labels.Set{"karpenter.sh/nodepool": "app"}
	for k, val := range app.Labels {
		node[k] = val
	}
	if !labels.SelectorFromSet(pod.NodeSelector).Matches(node) || labels.SelectorFromSet(pod.NodeSelector).Matches(labels.Set{"nodegroup": "system"}) {
		t.Errorf("node selector %v does not pin the pods to pool app", pod.NodeSelector)
	}
	for _, taint := range app.Taints {
		if !tolerates(pod.Tolerations, taint) {
			t.Errorf("pods do not tolerate the pool's taint %+v", taint)
		}
	}
	c := pod.Containers[0]
	if c.Resources.Requests.Cpu().Cmp(resource.MustParse("2")) != 0 || c.Resources.Requests.Memory().Cmp(resource.MustParse("4Gi")) != 0 {
		t.Errorf("requests %v, want cpu 2 and memory 4Gi", c.Resources.Requests)
	}
	if pod.Affinity != nil {
		t.Errorf("placeholders pack unless onePerNode: affinity %+v", pod.Affinity)
	}

	// onePerNode: no two placeholders of the pool share a node.
	app.Headroom.OnePerNode = true
	b, err = generators.Render(model.Resolve(p))
	if err != nil {
		t.Fatal(err)
	}
	docs = strings.Split(string(b.Files["headroom.yaml"]), "\n---\n")
	d = appsv1.Deployment{}
	strict(t, []byte(docs[1]), &d)
	aff := d.Spec.Template.Spec.Affinity
	if aff == nil || aff.PodAntiAffinity == nil || len(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("onePerNode: affinity %+v", aff)
	}
	term := aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	anti, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil || term.TopologyKey != corev1.LabelHostname || !anti.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("onePerNode: term %+v does not keep the deployment's own pods apart per node", term)
	}
}

// TestAddonPlacement: every add-on file holds valid scheduling settings
// that select the add-on group, tolerate its taints and exclude nodes
// Karpenter manages.
func TestAddonPlacement(t *testing.T) {
	v := matrix()[0]
	p := richProfile(v)
	p.Addons = profile.Addons{NodeGroup: "addon", EKS: []string{"coredns", "metrics-server", "aws-ebs-csi-driver", "aws-efs-csi-driver"},
		Helm: []string{"metrics-server", "aws-load-balancer-controller", "external-dns", "cert-manager"}}
	b, err := generators.Render(model.Resolve(p))
	if err != nil {
		t.Fatal(err)
	}
	group := p.NodeGroups["addon"]
	n := 0
	for path, data := range b.Files {
		if !strings.HasPrefix(path, "addons/") {
			continue
		}
		n++
		var values map[string]any
		if err := yaml.Unmarshal(data, &values); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// The settings sit at the top, under a component's key, or both.
		var placements []any
		top := map[string]any{}
		for k, sub := range values {
			switch k {
			case "nodeSelector", "tolerations", "affinity":
				top[k] = sub
			default:
				placements = append(placements, sub)
			}
		}
		if len(top) > 0 {
			placements = append(placements, top)
		}
		for _, pl := range placements {
			raw, _ := json.Marshal(pl)
			var spec struct {
				NodeSelector map[string]string   `json:"nodeSelector"`
				Tolerations  []corev1.Toleration `json:"tolerations"`
				Affinity     *corev1.Affinity    `json:"affinity"`
			}
			if err := yaml.UnmarshalStrict(raw, &spec); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if !labels.SelectorFromSet(spec.NodeSelector).Matches(labels.Set(group.Labels)) || len(spec.NodeSelector) == 0 {
				t.Errorf("%s: node selector %v does not select the addon group", path, spec.NodeSelector)
			}
			for _, taint := range group.Taints {
				if !tolerates(spec.Tolerations, taint) {
					t.Errorf("%s: does not tolerate %+v", path, taint)
				}
			}
			terms := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			if len(terms) != 1 || terms[0].MatchExpressions[0].Key != "karpenter.sh/nodepool" || terms[0].MatchExpressions[0].Operator != corev1.NodeSelectorOpDoesNotExist {
				t.Errorf("%s: affinity does not keep it off Karpenter nodes: %+v", path, terms)
			}
		}
	}
	if n != 8 {
		t.Errorf("%d add-on files, want 8", n)
	}
}

func tolerates(ts []corev1.Toleration, taint profile.Taint) bool {
	kt := &corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)}
	for _, tol := range ts {
		if tol.ToleratesTaint(klog.Background(), kt, false) {
			return true
		}
	}
	return false
}

// TestPodsAreRestricted: every pod karpgen emits (the headroom
// Deployment's) passes the Kubernetes "restricted" Pod Security level, as
// the admission plugin evaluates it, and mounts no service account token.
func TestPodsAreRestricted(t *testing.T) {
	eval, err := psapolicy.NewEvaluator(psapolicy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := richProfile(matrix()[0])
	app := p.NodePools["app"]
	app.Headroom = &profile.Headroom{Replicas: 1, CPU: "1", Memory: "1Gi", Image: "registry.k8s.io/pause:3.10"}
	p.NodePools["app"] = app
	b, err := generators.Render(model.Resolve(p))
	if err != nil {
		t.Fatal(err)
	}
	pods := 0
	for _, doc := range strings.Split(string(b.Files["headroom.yaml"]), "\n---\n") {
		if !strings.Contains(doc, "kind: Deployment") {
			continue
		}
		var d appsv1.Deployment
		strict(t, []byte(doc), &d)
		pods++
		results := eval.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, &d.Spec.Template.ObjectMeta, &d.Spec.Template.Spec)
		if agg := psapolicy.AggregateCheckResults(results); !agg.Allowed {
			t.Errorf("%s is not restricted: %s", d.Name, agg.ForbiddenDetail())
		}
		if d.Spec.Template.Spec.AutomountServiceAccountToken == nil || *d.Spec.Template.Spec.AutomountServiceAccountToken {
			t.Errorf("%s mounts a service account token it does not need", d.Name)
		}
	}
	if pods == 0 {
		t.Fatal("no pod in headroom.yaml")
	}
}

// TestWindowsHeadroomPods: a Windows pool's placeholder pods say
// spec.os.name windows and carry none of the fields the API server
// refuses on a Windows pod (the Linux-only ones the spec.os field
// documents), run as Windows' unprivileged ContainerUser, and still pass
// the "restricted" Pod Security level, which exempts those fields for
// Windows; a pool of both systems keeps its placeholders on Linux nodes.
func TestWindowsHeadroomPods(t *testing.T) {
	eval, err := psapolicy.NewEvaluator(psapolicy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := richProfile(matrix()[len(matrix())-1])
	app := p.NodePools["app"]
	app.Headroom = &profile.Headroom{Replicas: 1, CPU: "1", Memory: "1Gi", Image: "registry.k8s.io/pause:3.10"}
	win, both := app, app
	win.OS, both.OS = []string{"windows"}, []string{"linux", "windows"}
	p.NodePools["win"], p.NodePools["both"] = win, both
	b, err := generators.Render(model.Resolve(p))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, doc := range strings.Split(string(b.Files["headroom.yaml"]), "\n---\n") {
		if !strings.Contains(doc, "kind: Deployment") {
			continue
		}
		var d appsv1.Deployment
		strict(t, []byte(doc), &d)
		spec := d.Spec.Template.Spec
		results := eval.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, &d.Spec.Template.ObjectMeta, &spec)
		if agg := psapolicy.AggregateCheckResults(results); !agg.Allowed {
			t.Errorf("%s is not restricted: %s", d.Name, agg.ForbiddenDetail())
		}
		switch d.Name {
		case "headroom-win":
			seen++
			if spec.OS == nil || spec.OS.Name != "windows" {
				t.Errorf("%s: spec.os %v, want windows", d.Name, spec.OS)
			}
			psc, c := spec.SecurityContext, spec.Containers[0].SecurityContext
			if psc.SeccompProfile != nil || psc.RunAsUser != nil || psc.RunAsGroup != nil || psc.SELinuxOptions != nil || psc.FSGroup != nil || len(psc.SupplementalGroups) > 0 || len(psc.Sysctls) > 0 {
				t.Errorf("%s: Linux-only pod security fields on a Windows pod: %+v", d.Name, psc)
			}
			if c.Capabilities != nil || c.ReadOnlyRootFilesystem != nil || c.AllowPrivilegeEscalation != nil || c.RunAsUser != nil || c.SeccompProfile != nil || c.Privileged != nil {
				t.Errorf("%s: Linux-only container security fields on a Windows pod: %+v", d.Name, c)
			}
			if psc.WindowsOptions == nil || psc.WindowsOptions.RunAsUserName == nil || *psc.WindowsOptions.RunAsUserName != "ContainerUser" {
				t.Errorf("%s: not run as ContainerUser", d.Name)
			}
		case "headroom-both":
			seen++
			if spec.NodeSelector["kubernetes.io/os"] != "linux" || spec.OS != nil {
				t.Errorf("%s: a pool of both systems: node selector %v, os %v", d.Name, spec.NodeSelector, spec.OS)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("found %d of the two pools' Deployments", seen)
	}
}
