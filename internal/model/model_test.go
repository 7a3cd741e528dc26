package model_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/profile"
)

func base() *profile.Profile {
	return &profile.Profile{
		Env:     "dev",
		Cluster: profile.Cluster{Name: "ws-dev", Region: "cn-north-1", Partition: "aws-cn", AccountID: "491085395789"},
		Karpenter: profile.Karpenter{Version: "1.0.14", Namespace: "karpenter", ServiceAccount: "karpenter", InterruptionQueue: true,
			Controller: profile.Controller{NodeGroup: "addon"}},
		NodeGroups: map[string]profile.NodeGroup{
			"system": {Labels: map[string]string{"nodegroup": "system"}},
			"addon": {Labels: map[string]string{"nodegroup": "addon"},
				Taints: []profile.Taint{{Key: "dedicated", Value: "addon", Effect: "NoSchedule"}, {Key: "x", Effect: "PreferNoSchedule"}}},
		},
		NodePools: map[string]profile.NodePool{
			"app":   {Taints: []profile.Taint{{Key: "app", Effect: "NoExecute"}}},
			"batch": {},
		},
		ArgoCD: &profile.ArgoCD{RepoURL: "https://git.example/r.git", TargetRevision: "main", Path: "k", Namespace: "argocd", Project: "p"},
	}
}

func TestResolve(t *testing.T) {
	e := model.Resolve(base())
	if e.Facts == nil || e.Facts.Minor != "1.0" || e.Supported() != nil {
		t.Fatalf("facts %v, %v", e.Facts, e.Supported())
	}
	n := e.Names
	got := []string{n.NodeRole, n.NodeRoleARN, n.ControllerRoleARN, n.Queue, n.QueueARN, n.URLSuffix, n.ClusterARN}
	want := []string{"KarpenterNodeRole-ws-dev", "arn:aws-cn:iam::491085395789:role/KarpenterNodeRole-ws-dev",
		"arn:aws-cn:iam::491085395789:role/KarpenterController-ws-dev", "ws-dev", "arn:aws-cn:sqs:cn-north-1:491085395789:ws-dev",
		"amazonaws.com.cn", "arn:aws-cn:eks:cn-north-1:491085395789:cluster/ws-dev"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("names:\n got %q\nwant %q", got, want)
	}

	pl := e.Placement
	if !reflect.DeepEqual(pl.OpenGroups, []string{"system"}) || !reflect.DeepEqual(pl.OpenPools, []string{"batch"}) {
		t.Errorf("open groups %v, pools %v", pl.OpenGroups, pl.OpenPools)
	}
	if pl.AddonGroup != "system" || pl.ControllerGroup != "addon" {
		t.Errorf("add-on group %q, controller group %q", pl.AddonGroup, pl.ControllerGroup)
	}
	if !reflect.DeepEqual(pl.ControllerSelector, map[string]string{"kubernetes.io/os": "linux", "nodegroup": "addon"}) {
		t.Errorf("controller selector %v", pl.ControllerSelector)
	}
	wantTol := []model.Toleration{
		{Key: "CriticalAddonsOnly", Operator: "Exists"},
		{Key: "dedicated", Operator: "Equal", Value: "addon", Effect: "NoSchedule"},
		{Key: "x", Operator: "Exists", Effect: "PreferNoSchedule"},
	}
	if !reflect.DeepEqual(pl.ControllerTolerations, wantTol) {
		t.Errorf("controller tolerations %+v", pl.ControllerTolerations)
	}

	a := e.Application
	if a == nil || a.Name != "karpenter-dev" || a.DestinationServer != model.InClusterURL || a.DestinationNamespace != "karpenter" ||
		a.ChartVersion != "1.0.14" || !a.CRDWebhook || a.ValuesFile != "k/out/dev/helm/karpenter-values.yaml" {
		t.Errorf("application %+v", a)
	}
}

func TestResolveAddonGroupAndNames(t *testing.T) {
	p := base()
	delete(p.NodeGroups, "system")
	p.NodeGroups["workers"] = profile.NodeGroup{}
	p.Karpenter.NodeRole, p.Karpenter.InterruptionQueue = "Existing", false
	p.ArgoCD.Destination.Name = "ws-dev"
	e := model.Resolve(p)
	if e.Placement.AddonGroup != "workers" {
		t.Errorf("add-on group %q, want the first open group", e.Placement.AddonGroup)
	}
	if e.Names.NodeRole != "Existing" || e.Names.Queue != "" || e.Names.QueueARN != "" {
		t.Errorf("names %+v", e.Names)
	}
	if e.Application.DestinationName != "ws-dev" || e.Application.DestinationServer != "" {
		t.Errorf("application %+v", e.Application)
	}
	p.Karpenter.Version = "1.1.0"
	if model.Resolve(p).Application.CRDWebhook {
		t.Error("the CRD chart's conversion webhook is for 1.0 only")
	}
	p.Cluster.Name = strings.Repeat("c", 100)
	if n := model.Resolve(p).Names; len(n.ControllerRole) != 64 || !strings.HasPrefix(n.ControllerRole, "KarpenterController-ccc") {
		t.Errorf("a long controller role is cut to 64 with a hash: %q", n.ControllerRole)
	}
}

func TestResolveUnsupportedVersion(t *testing.T) {
	for v, want := range map[string]string{
		"1.2":    `"1.2" is not a Karpenter release version (MAJOR.MINOR.PATCH, e.g. "1.2.3")`,
		"0.37.8": "karpenter version 0.37.8 is not supported (supported: 1.0 to 1.15)",
		"1.99.0": "karpenter version 1.99.0 is not supported (supported: 1.0 to 1.15)",
	} {
		p := base()
		p.Karpenter.Version = v
		e := model.Resolve(p)
		if e.Facts != nil || e.Application != nil || e.Supported() == nil || e.Supported().Error() != want {
			t.Errorf("%s: facts %v, application %v, %v", v, e.Facts, e.Application, e.Supported())
		}
	}
	if rng, ok := model.KubernetesRangeOf("1.0.4"); !ok || rng != [2]string{"1.25", "1.30"} {
		t.Errorf("1.0.4 supports %v", rng)
	}
}
