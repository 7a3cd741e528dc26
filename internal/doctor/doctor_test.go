package doctor_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/envcheck/envchecktest"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
	"github.com/karpgen/karpgen/internal/printer"
	"github.com/karpgen/karpgen/internal/profile"
)

func prodEnv(t testing.TB) *model.Env {
	t.Helper()
	envs := envchecktest.Envs(t, filepath.Join("testdata", "profiles"))
	if len(envs) != 1 {
		t.Fatalf("the test profile has %d environments, want 1", len(envs))
	}
	return envs[0]
}

// healthy writes a captured folder of an account and cluster that are
// exactly what the bundle says, in the shapes the AWS CLI and kubectl
// print.
func healthy(t testing.TB, e *model.Env) map[string]any {
	n := e.Names
	b, err := generators.Render(e)
	if err != nil {
		t.Fatal(err)
	}
	var values any
	if err := yamlToAny(b.Files["helm/karpenter-values.yaml"], &values); err != nil {
		t.Fatal(err)
	}
	tags := []any{map[string]any{"Key": "karpenter.sh/discovery", "Value": n.Cluster}}
	files := map[string]any{
		"eks-cluster.json": map[string]any{"cluster": map[string]any{"name": n.Cluster, "version": "1.29", "status": "ACTIVE",
			"endpoint":           "https://0123456789ABCDEF0123456789ABCDEF.gr7." + n.Region + ".eks.amazonaws.com",
			"resourcesVpcConfig": map[string]any{"vpcId": "vpc-0a1b2c", "subnetIds": []any{"subnet-0a", "subnet-0c"}, "clusterSecurityGroupId": "sg-0node"},
			"identity":           map[string]any{"oidc": map[string]any{"issuer": "https://oidc.eks." + n.Region + ".amazonaws.com/id/ABC"}},
			"accessConfig":       map[string]any{"authenticationMode": "API_AND_CONFIG_MAP"}}},
		"ec2-subnets.json": map[string]any{"Subnets": []any{
			map[string]any{"SubnetId": "subnet-0a", "VpcId": "vpc-0a1b2c", "AvailabilityZone": n.Region + "a", "AvailableIpAddressCount": 4000, "Tags": tags},
			map[string]any{"SubnetId": "subnet-0c", "VpcId": "vpc-0a1b2c", "AvailabilityZone": n.Region + "c", "AvailableIpAddressCount": 3900, "Tags": tags},
			map[string]any{"SubnetId": "subnet-0p", "VpcId": "vpc-0a1b2c", "AvailabilityZone": n.Region + "b", "AvailableIpAddressCount": 250, "Tags": []any{}},
		}},
		"ec2-security-groups.json": map[string]any{"SecurityGroups": []any{
			map[string]any{"GroupId": "sg-0node", "GroupName": "eks-cluster-sg-" + n.Cluster, "Tags": tags},
		}},
		"iam-node-role.json": map[string]any{"Role": map[string]any{"RoleName": n.NodeRole, "Arn": n.NodeRoleARN, "Path": "/",
			"AssumeRolePolicyDocument": generators.NodeTrustPolicy(n)}},
		"iam-node-role-policies.json":       attached(n, e.Facts.NodeRolePolicies, true),
		"iam-controller-role.json":          map[string]any{"Role": map[string]any{"RoleName": n.ControllerRole, "Arn": n.ControllerRoleARN, "Path": "/", "AssumeRolePolicyDocument": generators.ControllerTrustPolicy(e)}},
		"iam-spot-service-linked-role.json": map[string]any{"Role": map[string]any{"RoleName": "AWSServiceRoleForEC2Spot", "Arn": "arn:aws:iam::" + n.Account + ":role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot"}},
		"iam-oidc-providers.json":           map[string]any{"OpenIDConnectProviderList": []any{}},
		"eks-access-entries.json":           map[string]any{"accessEntries": []any{n.NodeRoleARN}},
		"eks-access-entry-node.json": map[string]any{"accessEntry": map[string]any{"clusterName": n.Cluster, "principalArn": n.NodeRoleARN,
			"type": "EC2_LINUX", "kubernetesGroups": []any{"system:nodes"}, "username": "system:node:{{EC2PrivateDNSName}}"}},
		"eks-pod-identity-associations.json": map[string]any{"associations": []any{map[string]any{"clusterName": n.Cluster,
			"namespace": n.Namespace, "serviceAccount": n.ServiceAccount, "associationId": "a-0123"}}},
		"eks-addons.json": map[string]any{"addons": []any{"coredns", "eks-pod-identity-agent", "kube-proxy", "vpc-cni"}},
		"sqs-queue.json": map[string]any{"Attributes": map[string]any{"QueueArn": n.QueueARN, "MessageRetentionPeriod": "300",
			"Policy": mustJSON(t, generators.InterruptionQueuePolicy(n))}},
		"k8s-crds.json": map[string]any{"apiVersion": "v1", "kind": "List", "items": crds(e)},
		"k8s-context.json": map[string]any{"kind": "Config", "current-context": "arn:aws:eks:" + n.Region + ":" + n.Account + ":cluster/" + n.Cluster,
			"clusters": []any{map[string]any{"name": "arn:aws:eks:" + n.Region + ":" + n.Account + ":cluster/" + n.Cluster,
				"cluster": map[string]any{"server": "https://0123456789abcdef0123456789abcdef.gr7." + n.Region + ".eks.amazonaws.com", "certificate-authority-data": "DATA+OMITTED"}}}},
		"k8s-webhooks.json": map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{}},
		"k8s-karpenter-deployment.json": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "karpenter", "namespace": n.Namespace},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "controller", "image": "public.ecr.aws/karpenter/controller:" + e.Version.String() + "@sha256:0123",
				"env": []any{map[string]any{"name": "CLUSTER_NAME", "value": n.Cluster}, map[string]any{"name": "INTERRUPTION_QUEUE", "value": n.Queue}},
			}}}}}},
		"k8s-ec2nodeclasses.json": map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{ready("EC2NodeClass", "default")}},
		"k8s-nodepools.json":      map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{ready("NodePool", "app")}},
		"helm-values.json":        values,
	}
	// The node groups the profile keeps, as EKS describes them, beside
	// one Cluster Autoscaler still scales.
	groups := []any{"ng-general"}
	for _, g := range slices.Sorted(maps.Keys(e.Profile.NodeGroups)) {
		groups = append(groups, g)
		ng := e.Profile.NodeGroups[g]
		labels := map[string]any{}
		for k, v := range ng.Labels {
			// describe-nodegroup lists only the labels a user set: EKS
			// refuses its own prefixes there and sets its labels itself.
			if prefix, _, _ := strings.Cut(k, "/"); prefix != "eks.amazonaws.com" && !strings.HasSuffix(prefix, "kubernetes.io") && !strings.HasSuffix(prefix, "k8s.io") {
				labels[k] = v
			}
		}
		taints := []any{}
		for _, t := range ng.Taints {
			taints = append(taints, map[string]any{"key": t.Key, "value": t.Value, "effect": map[string]string{"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}[t.Effect]})
		}
		files["eks-nodegroup-"+g+".json"] = map[string]any{"nodegroup": map[string]any{"nodegroupName": g, "clusterName": n.Cluster, "status": "ACTIVE",
			"capacityType":  "ON_DEMAND",
			"scalingConfig": map[string]any{"minSize": 2, "maxSize": 2, "desiredSize": 2}, "labels": labels, "taints": taints}}
	}
	files["eks-nodegroups.json"] = map[string]any{"nodegroups": groups}
	files["k8s-pdbs.json"] = map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		map[string]any{"metadata": map[string]any{"name": "coredns", "namespace": "kube-system"}, "spec": map[string]any{"maxUnavailable": 1},
			"status": map[string]any{"currentHealthy": 2, "desiredHealthy": 1, "disruptionsAllowed": 1, "expectedPods": 2}},
	}}
	// Cluster Autoscaler scaled to zero, as the migration leaves it.
	files["k8s-workloads.json"] = map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		workload("Deployment", "kube-system", "coredns", 2, "602401143452.dkr.ecr."+n.Region+".amazonaws.com/eks/coredns:v1.11.4-eksbuild.2"),
		workload("Deployment", "kube-system", "cluster-autoscaler-aws-cluster-autoscaler", 0, "registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1"),
		workload("DaemonSet", "kube-system", "aws-node", 0, "602401143452.dkr.ecr."+n.Region+".amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1"),
	}}
	var policies []string
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, n, e.IAMGates) {
		policies = append(policies, cp.Name)
		files["iam-policy-"+cp.Name+".json"] = map[string]any{"PolicyVersion": map[string]any{"Document": cp.Document, "VersionId": "v1", "IsDefaultVersion": true}}
	}
	files["iam-controller-role-policies.json"] = attached(n, policies, false)
	var rules, targeting []any
	for _, r := range generators.InterruptionRules(e.Facts, n) {
		rm := r.(map[string]any)
		rules = append(rules, map[string]any{"Name": rm["Name"], "EventPattern": mustJSON(t, rm["EventPattern"]), "State": "ENABLED"})
		targeting = append(targeting, rm["Name"])
	}
	files["events-rules.json"] = map[string]any{"Rules": rules}
	files["events-rules-by-target.json"] = map[string]any{"RuleNames": targeting}
	entries := []any{n.NodeRoleARN}
	for _, r := range n.ExtraNodeRoles {
		entries = append(entries, r.ARN)
		policies := attached(n, e.Facts.NodeRolePolicies, true)
		for _, arn := range r.Policies {
			policies["AttachedPolicies"] = append(policies["AttachedPolicies"].([]any), map[string]any{"PolicyName": arn[strings.LastIndex(arn, "/")+1:], "PolicyArn": arn})
		}
		files["iam-extra-node-role-"+r.Name+".json"] = map[string]any{"Role": map[string]any{"RoleName": r.Name, "Arn": r.ARN, "Path": "/",
			"AssumeRolePolicyDocument": generators.NodeTrustPolicy(n)}}
		files["iam-extra-node-policies-"+r.Name+".json"] = policies
		files["eks-access-entry-extra-node-"+r.Name+".json"] = map[string]any{"accessEntry": map[string]any{"clusterName": n.Cluster, "principalArn": r.ARN,
			"type": "EC2_LINUX", "kubernetesGroups": []any{"system:nodes"}, "username": "system:node:{{EC2PrivateDNSName}}"}}
	}
	files["eks-access-entries.json"] = map[string]any{"accessEntries": entries}
	for _, nc := range e.Profile.NodeClasses {
		if nc.InstanceProfile != "" {
			files["iam-instance-profile-"+nc.InstanceProfile+".json"] = holding(nc.InstanceProfile, cmp.Or(nc.InstanceProfileRole, n.NodeRole))
		}
	}
	if app := e.Application; app != nil {
		// Argo CD installs the charts: no release, and the Application
		// as the bundle writes it, synced and healthy.
		delete(files, "helm-values.json")
		var obj map[string]any
		if err := json.Unmarshal(mustJSONBytes(t, generators.Application(app)), &obj); err != nil {
			t.Fatal(err)
		}
		obj["status"] = map[string]any{"sync": map[string]any{"status": "Synced"}, "health": map[string]any{"status": "Healthy"}}
		files["argocd-application.json"] = obj
	}
	return files
}

// holding is an instance profile that holds a role, as the AWS CLI
// prints it.
func holding(profile, role string) map[string]any {
	return map[string]any{"InstanceProfile": map[string]any{"InstanceProfileName": profile,
		"Roles": []any{map[string]any{"RoleName": role, "Arn": "arn:aws:iam::491085395789:role/" + role}}}}
}

// instanceProfileEnv is the test environment with a node class that
// launches with an instance profile holding an existing role of
// karpenter.nodeRoles.
func instanceProfileEnv(t testing.TB) *model.Env {
	p := *prodEnv(t).Profile
	p.Karpenter.NodeRoles = map[string]profile.NodeRole{"legacy-nodes": {Existing: true}}
	p.NodeClasses = maps.Clone(p.NodeClasses)
	legacy := p.NodeClasses["default"]
	legacy.Role, legacy.InstanceProfile, legacy.InstanceProfileRole = "", "legacy-profile", "legacy-nodes"
	p.NodeClasses["legacy"] = legacy
	return model.Resolve(&p)
}

// workload is a Deployment, StatefulSet or DaemonSet as kubectl prints
// it, with one container; a DaemonSet has no replicas.
func workload(kind, namespace, name string, replicas int, image string) map[string]any {
	spec := map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": name, "image": image}}}}}
	if kind != "DaemonSet" {
		spec["replicas"] = replicas
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": namespace}, "spec": spec}
}

func mustJSONBytes(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// argoEnv is prodEnv delivered by Argo CD.
func argoEnv(t testing.TB) *model.Env {
	t.Helper()
	p := *prodEnv(t).Profile
	p.ArgoCD = &profile.ArgoCD{RepoURL: "https://git.example.com/platform/karpenter.git", TargetRevision: "main", Path: ".", Namespace: "argocd"}
	p.ArgoCD.Destination.Name = p.Cluster.Name
	return model.Resolve(&p)
}

func attached(n model.Names, names []string, managed bool) map[string]any {
	var out []any
	for _, p := range names {
		arn := "arn:" + n.Partition + ":iam::" + n.Account + ":policy/" + p
		if managed {
			arn = n.ManagedPolicyARN(p)
		}
		out = append(out, map[string]any{"PolicyName": p, "PolicyArn": arn})
	}
	return map[string]any{"AttachedPolicies": out}
}

func crds(e *model.Env) []any {
	var out []any
	for _, name := range []string{"ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"} {
		out = append(out, map[string]any{"kind": "CustomResourceDefinition", "metadata": map[string]any{"name": name},
			"spec":   map[string]any{"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}}},
			"status": map[string]any{"storedVersions": []any{"v1"}}})
	}
	return out
}

func ready(kind, name string) map[string]any {
	return map[string]any{"kind": kind, "metadata": map[string]any{"name": name},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Ready", "message": ""}}}}
}

func mustJSON(t testing.TB, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writeState writes files into a folder, as the capture script does.
func writeState(t *testing.T, files map[string]any) string {
	dir := t.TempDir()
	for name, v := range files {
		data, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t *testing.T, e *model.Env, dir string) *doctor.Report {
	t.Helper()
	r, err := doctor.Run(e, doctor.NewState(os.DirFS(dir), dir))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func findings(r *doctor.Report) []diag.Finding {
	var out []diag.Finding
	for _, res := range r.Results {
		out = append(out, res.Findings...)
	}
	return out
}

// TestHealthy: a folder that is what the bundle says passes every check,
// and the same folder gives the same report byte for byte. The folder is
// kept in testdata/state/healthy, as a capture writes it
// (KARPGEN_UPDATE=1 rewrites it).
func TestHealthy(t *testing.T) {
	e := prodEnv(t)
	dir := filepath.Join("testdata", "state", "healthy")
	oracle.GoldenTree(t, writeState(t, healthy(t, e)), dir)
	r := run(t, e, dir)
	for _, res := range r.Results {
		if res.Status != "ok" && !(slices.Contains([]string{"doctor/argocd-application", "doctor/instance-profiles"}, res.Check) && res.Status == "not-applicable") {
			t.Errorf("%s: %s %s %+v", res.Check, res.Status, res.Skipped, res.Findings)
		}
	}
	if !strings.HasPrefix(text(r), "doctor prod: 21 checks, 19 ok, 0 failed, 0 skipped, 0 not checked, 2 not applicable\n") {
		t.Errorf("report:\n%s", text(r))
	}
	if len(r.Results) != len(doctor.Catalog()) {
		t.Errorf("%d results for %d checks", len(r.Results), len(doctor.Catalog()))
	}
	if a, b := text(r), text(run(t, e, dir)); a != b {
		t.Error("two runs on the same folder differ")
	}
}

// TestHealthyArgoCD: an environment Argo CD delivers has no Helm release;
// its capture reads the Application instead, and a healthy one passes
// every check (the release's values are not applicable), never
// "incomplete".
func TestHealthyArgoCD(t *testing.T) {
	e := argoEnv(t)
	r := run(t, e, writeState(t, healthy(t, e)))
	for _, res := range r.Results {
		if res.Status != "ok" && !(slices.Contains([]string{"doctor/helm-values", "doctor/instance-profiles"}, res.Check) && res.Status == "not-applicable") {
			t.Errorf("%s: %s %s %+v", res.Check, res.Status, res.Skipped, res.Findings)
		}
	}
	if got := text(r); !strings.HasPrefix(got, "doctor prod: 21 checks, 19 ok, 0 failed, 0 skipped, 0 not checked, 2 not applicable\n") || r.Incomplete() {
		t.Errorf("report:\n%s", got)
	}
	// It lists the Helm releases (a plan hands one over to Argo CD) but
	// reads no release's values.
	script := doctor.Script(e)
	if strings.Contains(script, "helm get") || !strings.Contains(script, "run helm-releases.json helm list --all-namespaces --all -o json") || !strings.Contains(script, `run argocd-application.json kubectl ${ARGOCD_CONTEXT:+--context "$ARGOCD_CONTEXT"} get applications.argoproj.io karpenter-prod --namespace argocd -o json`) {
		t.Errorf("capture script:\n%s", script)
	}
}

// TestBroken: each broken folder (the healthy one with one thing wrong)
// produces exactly its check's finding.
func TestBroken(t *testing.T) {
	e := prodEnv(t)
	n := e.Names
	lifecycle := "iam-policy-" + n.ControllerPolicyName("NodeLifecycle") + ".json"
	cases := []struct {
		check, resource, found string
		breakIt                func(f map[string]any)
	}{
		{"doctor/kube-context", "kubeconfig context staging", "https://FEDCBA.gr7.ap-northeast-2.eks.amazonaws.com", func(f map[string]any) {
			kc := f["k8s-context.json"].(map[string]any)
			kc["current-context"] = "staging"
			kc["clusters"].([]any)[0].(map[string]any)["cluster"].(map[string]any)["server"] = "https://FEDCBA.gr7.ap-northeast-2.eks.amazonaws.com"
		}},
		{"doctor/node-groups", "node group system", "absent", func(f map[string]any) {
			f["eks-nodegroups.json"] = map[string]any{"nodegroups": []any{"addon", "ng-general"}}
		}},
		{"doctor/node-groups", "node group addon", "none", func(f map[string]any) {
			get(f, "eks-nodegroup-addon.json", "nodegroup")["taints"] = []any{}
		}},
		{"doctor/disruption-budgets", "PodDisruptionBudget kube-system/coredns", "0 of 2 pods (maxUnavailable 1)", func(f map[string]any) {
			f["k8s-pdbs.json"].(map[string]any)["items"].([]any)[0].(map[string]any)["status"].(map[string]any)["disruptionsAllowed"] = 0
		}},
		{"doctor/cluster-autoscaler", "deployment kube-system/cluster-autoscaler-aws-cluster-autoscaler", "1 replicas of registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1", func(f map[string]any) {
			f["k8s-workloads.json"].(map[string]any)["items"].([]any)[1].(map[string]any)["spec"].(map[string]any)["replicas"] = 1
		}},
		{"doctor/instance-profiles", "instance profile legacy-profile", "ops-admin", func(f map[string]any) {
			f["iam-instance-profile-legacy-profile.json"] = holding("legacy-profile", "ops-admin")
		}},
		{"doctor/kubernetes-version", "cluster ws-prod", "Kubernetes 1.30", func(f map[string]any) {
			get(f, "eks-cluster.json", "cluster")["version"] = "1.30"
		}},
		{"doctor/subnets", "node pool app zone ap-northeast-2c", "none", func(f map[string]any) {
			subnets := f["ec2-subnets.json"].(map[string]any)["Subnets"].([]any)
			subnets[1].(map[string]any)["Tags"] = []any{map[string]any{"Key": "karpenter.sh/discovery", "Value": "ws-other"}}
		}},
		{"doctor/subnets", "node pool app zone ap-northeast-2a", "0 free addresses", func(f map[string]any) {
			f["ec2-subnets.json"].(map[string]any)["Subnets"].([]any)[0].(map[string]any)["AvailableIpAddressCount"] = 0
		}},
		{"doctor/security-groups", "node class default", "none", func(f map[string]any) {
			f["ec2-security-groups.json"].(map[string]any)["SecurityGroups"].([]any)[0].(map[string]any)["Tags"] = []any{}
		}},
		// terraform-aws-eks's node groups carry the module's node security
		// group, from their launch templates; Karpenter's nodes, on the
		// cluster security group, could not reach CoreDNS on them.
		{"doctor/node-security-groups", "node class default", "sg-0node (the cluster security group)", func(f map[string]any) {
			sgs := f["ec2-security-groups.json"].(map[string]any)
			sgs["SecurityGroups"] = append(sgs["SecurityGroups"].([]any), map[string]any{"GroupId": "sg-0modulenode", "GroupName": "ws-prod-node-2025", "Description": "EKS node shared security group"})
			get(f, "eks-nodegroup-addon.json", "nodegroup")["launchTemplate"] = map[string]any{"id": "lt-0a1b2c3d", "name": "addon-eks-node-group-2025", "version": "1"}
			f["ec2-launch-template-addon.json"] = map[string]any{"LaunchTemplateVersions": []any{map[string]any{"LaunchTemplateId": "lt-0a1b2c3d", "VersionNumber": 1,
				"LaunchTemplateData": map[string]any{"SecurityGroupIds": []any{"sg-0modulenode"}}}}}
		}},
		// One association per service account: bound to another role, the
		// controller gets that role's permissions, and the bundle's cannot
		// be created beside it.
		{"doctor/controller-trust", "pod identity association a-0abc1def2 (karpenter/karpenter)", "role arn:aws:iam::491085395789:role/ws-prod-karpenter", func(f map[string]any) {
			f["eks-pod-identity-association-a-0abc1def2.json"] = map[string]any{"association": map[string]any{"associationId": "a-0abc1def2", "namespace": "karpenter",
				"serviceAccount": "karpenter", "roleArn": "arn:aws:iam::491085395789:role/ws-prod-karpenter", "clusterName": "ws-prod"}}
		}},
		{"doctor/node-role", "role KarpenterNodeRole-ws-prod", "NoSuchEntity: The role with name KarpenterNodeRole-ws-prod cannot be found.", func(f map[string]any) {
			f["iam-node-role.json"] = captureError("NoSuchEntity", "The role with name KarpenterNodeRole-ws-prod cannot be found.")
		}},
		{"doctor/node-access", "access entry arn:aws:iam::491085395789:role/KarpenterNodeRole-ws-prod", "type STANDARD", func(f map[string]any) {
			get(f, "eks-access-entry-node.json", "accessEntry")["type"] = "STANDARD"
		}},
		// A cluster still in CONFIG_MAP mode (a 0.31-era cluster) cannot
		// hold the bundle's access entries: EKS refuses them and the IAM
		// stack rolls back.
		{"doctor/node-access", "cluster ws-prod", "authentication mode CONFIG_MAP", func(f map[string]any) {
			get(f, "eks-cluster.json", "cluster")["accessConfig"] = map[string]any{"authenticationMode": "CONFIG_MAP"}
		}},
		{"doctor/controller-trust", "add-on eks-pod-identity-agent", "absent", func(f map[string]any) {
			f["eks-addons.json"] = map[string]any{"addons": []any{"coredns", "vpc-cni"}}
		}},
		{"doctor/controller-policy", "policy KarpenterControllerNodeLifecyclePolicy-ws-prod statement AllowScopedEC2InstanceAccessActions",
			"missing actions ec2:CreateFleet; extra actions none", func(f map[string]any) {
				for _, st := range get(f, lifecycle, "PolicyVersion")["Document"].(map[string]any)["Statement"].([]any) {
					s := st.(map[string]any)
					if s["Sid"] == "AllowScopedEC2InstanceAccessActions" {
						s["Action"] = []any{"ec2:RunInstances"}
					}
				}
			}},
		{"doctor/interruption", "events aws.ec2 / EC2 Spot Instance Interruption Warning", "rules KarpenterSpotInterruption-ws-prod, none of them targeting the queue", func(f map[string]any) {
			by := f["events-rules-by-target.json"].(map[string]any)
			by["RuleNames"] = slices.DeleteFunc(slices.Clone(by["RuleNames"].([]any)), func(x any) bool { return x == "KarpenterSpotInterruption-ws-prod" })
		}},
		{"doctor/spot-role", "role AWSServiceRoleForEC2Spot", "NoSuchEntity: The role with name AWSServiceRoleForEC2Spot cannot be found.", func(f map[string]any) {
			f["iam-spot-service-linked-role.json"] = captureError("NoSuchEntity", "The role with name AWSServiceRoleForEC2Spot cannot be found.")
		}},
		{"doctor/crds", "CRD nodepools.karpenter.sh", "[v1beta1 v1]", func(f map[string]any) {
			for _, it := range f["k8s-crds.json"].(map[string]any)["items"].([]any) {
				if it.(map[string]any)["metadata"].(map[string]any)["name"] == "nodepools.karpenter.sh" {
					it.(map[string]any)["status"] = map[string]any{"storedVersions": []any{"v1beta1", "v1"}}
				}
			}
		}},
		{"doctor/webhooks", "validatingwebhookconfiguration validation.webhook.karpenter.sh", "present", func(f map[string]any) {
			f["k8s-webhooks.json"].(map[string]any)["items"] = []any{map[string]any{"kind": "ValidatingWebhookConfiguration",
				"metadata": map[string]any{"name": "validation.webhook.karpenter.sh"}, "webhooks": []any{}}}
		}},
		{"doctor/controller", "deployment karpenter/karpenter", "INTERRUPTION_QUEUE=", func(f map[string]any) {
			c := get(f, "k8s-karpenter-deployment.json", "spec")["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			c["env"] = []any{map[string]any{"name": "CLUSTER_NAME", "value": "ws-prod"}}
		}},
		{"doctor/helm-values", "release karpenter/karpenter", `settings.interruptionQueue = ""`, func(f map[string]any) {
			f["helm-values.json"].(map[string]any)["settings"].(map[string]any)["interruptionQueue"] = ""
		}},
		{"doctor/argocd-application", "application argocd/karpenter-prod", "spec.sources[0].targetRevision = \"1.9.3\"", func(f map[string]any) {
			get(f, "argocd-application.json", "spec")["sources"].([]any)[0].(map[string]any)["targetRevision"] = "1.9.3"
		}},
		{"doctor/argocd-application", "application argocd/karpenter-prod", "health Degraded (Deployment karpenter/karpenter: 0 of 2 replicas ready)", func(f map[string]any) {
			f["argocd-application.json"].(map[string]any)["status"].(map[string]any)["health"] = map[string]any{"status": "Degraded", "message": "Deployment karpenter/karpenter: 0 of 2 replicas ready"}
		}},
		{"doctor/node-class-status", "EC2NodeClass default", "Ready=False (SubnetsNotFound: SubnetSelector did not match any Subnets)", func(f map[string]any) {
			f["k8s-ec2nodeclasses.json"].(map[string]any)["items"] = []any{map[string]any{"kind": "EC2NodeClass", "metadata": map[string]any{"name": "default"},
				"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "SubnetsNotFound", "message": "SubnetSelector did not match any Subnets"}}}}}
		}},
		{"doctor/node-class-status", "NodePool app", "NodeClassReady=False (NodeClassNotReady: EC2NodeClass default is not ready)", func(f map[string]any) {
			f["k8s-nodepools.json"].(map[string]any)["items"] = []any{map[string]any{"kind": "NodePool", "metadata": map[string]any{"name": "app"},
				"status": map[string]any{"conditions": []any{map[string]any{"type": "NodeClassReady", "status": "False", "reason": "NodeClassNotReady", "message": "EC2NodeClass default is not ready"}}}}}
		}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.check] = true
		t.Run(strings.TrimPrefix(c.check, "doctor/")+"/"+c.found, func(t *testing.T) {
			env := e
			switch c.check {
			case "doctor/argocd-application":
				env = argoEnv(t) // the check of an environment Argo CD delivers
			case "doctor/instance-profiles":
				env = instanceProfileEnv(t) // a node class with an instance profile
			}
			f := healthy(t, env)
			c.breakIt(f)
			got := findings(run(t, env, writeState(t, f)))
			if len(got) != 1 {
				t.Fatalf("%d findings, want exactly one: %+v", len(got), got)
			}
			if got[0].Rule != c.check || got[0].Resource != c.resource || got[0].Found != c.found || got[0].Expected == "" {
				t.Errorf("finding %+v\nwant check %s, resource %q, found %q", got[0], c.check, c.resource, c.found)
			}
		})
	}
	for _, ch := range doctor.Catalog() {
		if !covered[ch.ID] {
			t.Errorf("check %s has no broken folder", ch.ID)
		}
	}
}

func get(f map[string]any, file, key string) map[string]any {
	return f[file].(map[string]any)[key].(map[string]any)
}

func captureError(code, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg}}
}

// TestNotCapturedIsSkipped: a file that is absent skips its checks,
// never guessed.
func TestNotCapturedIsSkipped(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	delete(f, "helm-values.json")
	delete(f, "k8s-crds.json")
	r := run(t, e, writeState(t, f))
	var skipped []string
	for _, res := range r.Results {
		if res.Status == "skipped" {
			skipped = append(skipped, res.Check+": "+res.Skipped)
		}
	}
	sort.Strings(skipped)
	if want := "doctor/crds: k8s-crds.json not captured|doctor/helm-values: helm-values.json not captured"; strings.Join(skipped, "|") != want {
		t.Errorf("skipped %v", skipped)
	}
}

// TestFindingsStandWhenALaterFileIsMissing: a check that found something
// before reaching a file the capture lacks keeps its finding and says
// what it could not check; doctor exits non-zero for it. A missing queue
// is reported though events-rules-by-target.json was not captured.
func TestFindingsStandWhenALaterFileIsMissing(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	f["sqs-queue.json"] = captureError("AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist.")
	delete(f, "events-rules-by-target.json")
	r := run(t, e, writeState(t, f))
	for _, res := range r.Results {
		if res.Check != "doctor/interruption" {
			continue
		}
		if res.Status != "failed" || len(res.Findings) != 1 || res.Findings[0].Resource != "queue "+e.Names.Queue ||
			!strings.Contains(res.Findings[0].Found, "NonExistentQueue") || res.Skipped != "events-rules-by-target.json not captured" {
			t.Errorf("doctor/interruption: %s (%s), findings %+v", res.Status, res.Skipped, res.Findings)
		}
		return
	}
	t.Error("no doctor/interruption result")
}

// TestMalformedState: a file that is not what the capture writes is an
// error naming the file and the JSON path.
func TestMalformedState(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	get(f, "eks-cluster.json", "cluster")["version"] = 129
	_, err := doctor.Run(e, doctor.NewState(os.DirFS(writeState(t, f)), "state"))
	if err == nil || err.Error() != "eks-cluster.json: cluster.version: expected a string, found a number" {
		t.Errorf("err %v", err)
	}
	dir := writeState(t, healthy(t, e))
	os.WriteFile(filepath.Join(dir, "eks-addons.json"), []byte("{not json"), 0o644)
	_, err = doctor.Run(e, doctor.NewState(os.DirFS(dir), "state"))
	if err == nil || !strings.HasPrefix(err.Error(), "eks-addons.json: not JSON at byte 2") {
		t.Errorf("err %v", err)
	}
}

// readOnly are the commands the capture may run.
// (kubectl config view redacts credentials unless given --raw.)
var readOnly = regexp.MustCompile(`^(aws [a-z0-9-]+ (describe|get|list)-[a-z-]+|kubectl get|kubectl config view --minify|helm get values|helm list) `)

// TestCaptureScript: the script is POSIX sh (sh -n, and shellcheck when
// installed), names no command that writes, and with stand-ins for aws,
// kubectl and helm writes one JSON file per command, or the error object
// with the code the tool reported.
func TestCaptureScript(t *testing.T) {
	e := prodEnv(t)
	script := doctor.Script(e)
	for _, line := range strings.Split(script, "\n") {
		if strings.HasPrefix(line, "run ") {
			cmd := strings.SplitN(line, " ", 3)[2]
			if !readOnly.MatchString(cmd) {
				t.Errorf("not a read-only command: %s", cmd)
			}
			for _, sub := range regexp.MustCompile(`\$\(([^)]*)\)`).FindAllStringSubmatch(cmd, -1) {
				if !readOnly.MatchString(sub[1] + " ") {
					t.Errorf("not a read-only command: %s", sub[1])
				}
			}
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "capture.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		oracle.Missing(t, "shellcheck is not installed: %v", err)
	} else if out, err := exec.Command("shellcheck", "-s", "sh", path).CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}

	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	stub := `#!/bin/sh
case "$*" in
*list-nodegroups*) echo "ng-a	ng-b";;
*AWSServiceRoleForEC2Spot*) printf 'An error occurred (NoSuchEntity) when calling the GetRole operation: The role with name AWSServiceRoleForEC2Spot cannot be found.\t"quoted"\\ \r\033[31m\377\n' >&2; exit 254;;
*cloudformation*) printf 'An error occurred (ValidationError) when calling the DescribeStacks operation: Stack with id X does not exist\n' >&2; exit 254;;
*describe-security-groups*) [ -n "${DENY:-}" ] && { printf 'An error occurred (UnauthorizedOperation) when calling the DescribeSecurityGroups operation: You are not authorized to perform this operation.\n' >&2; exit 254; }; echo '{}';;
*"--query"*) echo "vpc-0a1b2c";;
*) printf '{"tool": "%s", "args": "%s"}\n' "$(basename "$0")" "$1 $2";;
esac
`
	for _, tool := range []string{"aws", "kubectl", "helm"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(dir, "state")
	cmd := exec.Command("sh", path, state)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "DENY=1")
	// One command could not look: every file is written, the summary
	// says so, and the script exits 1. What does not exist (the Spot
	// role, the stacks of a shop without them) is an answer, not a
	// failure.
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("capture: %v\n%s", err, out)
	}
	want := "capture: ec2-security-groups.json: UnauthorizedOperation\n" +
		"capture: iam-spot-service-linked-role.json: NoSuchEntity (does not exist)\n" +
		"capture: cfn-stack-Karpenter-ws-prod.json: ValidationError (does not exist)\n" +
		"capture: cfn-resources-Karpenter-ws-prod.json: ValidationError (does not exist)\n" +
		"capture: cfn-template-Karpenter-ws-prod.json: ValidationError (does not exist)\n" +
		"capture: 1 command(s) failed (their files hold the error); check the credentials and the kubeconfig, then run it again\n"
	if string(out) != want {
		t.Errorf("capture printed %q, want %q", out, want)
	}
	// Without the denied command, a shop without the stacks or the Spot
	// role captures cleanly: exit 0.
	clean := exec.Command("sh", path, filepath.Join(dir, "clean"))
	clean.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if out, err := clean.CombinedOutput(); err != nil || !strings.HasSuffix(string(out), "captured into "+filepath.Join(dir, "clean")+"\n") {
		t.Errorf("a capture whose failures are all answers: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(state)
	// One file per command, one per node group list-nodegroups names
	// (the stub names two), and the time of the capture.
	if want := strings.Count(script, "\nrun ") + 3; len(entries) != want {
		t.Errorf("%d files, want %d", len(entries), want)
	}
	for _, g := range []string{"ng-a", "ng-b"} {
		if _, err := os.Stat(filepath.Join(state, "eks-nodegroup-"+g+".json")); err != nil {
			t.Errorf("node group %s: %v", g, err)
		}
	}
	var slr struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	data, _ := os.ReadFile(filepath.Join(state, "iam-spot-service-linked-role.json"))
	if err := json.Unmarshal(data, &slr); err != nil || slr.Error.Code != "NoSuchEntity" || !strings.HasSuffix(slr.Error.Message, "cannot be found.quoted [31m") {
		t.Errorf("error file %s (%v)", data, err)
	}
	if data, _ := os.ReadFile(filepath.Join(state, "capture-time.json")); !regexp.MustCompile(`^\{"time": "20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"\}\n$`).Match(data) {
		t.Errorf("capture-time.json: %q", data)
	}
	data, _ = os.ReadFile(filepath.Join(state, "eks-cluster.json"))
	if string(data) != "{\"tool\": \"aws\", \"args\": \"eks describe-cluster\"}\n" {
		t.Errorf("eks-cluster.json is %q", data)
	}
}

func yamlToAny(data []byte, v *any) error {
	return yamlUnmarshal(data, v)
}

// TestHealthyInEveryPartition: an account of each partition that is what
// the bundle says passes the identity checks: in aws-cn the node role
// trusts EC2's China principal, which the checks must expect.
func TestHealthyInEveryPartition(t *testing.T) {
	for _, region := range []string{"cn-north-1", "us-gov-west-1", "eu-west-1"} {
		t.Run(region, func(t *testing.T) {
			p := *prodEnv(t).Profile
			p.Cluster.Region, p.Cluster.Partition = region, facts.PartitionOf(region)
			p.NodePools = maps.Clone(p.NodePools)
			for name, np := range p.NodePools {
				np.Zones = nil
				p.NodePools[name] = np
			}
			e := model.Resolve(&p)
			r := run(t, e, writeState(t, healthy(t, e)))
			for _, f := range findings(r) {
				if strings.Contains(f.Rule, "role") {
					t.Errorf("%s: %+v", region, f)
				}
			}
		})
	}
}

// text is the report as doctor prints it for a terminal.
func text(r *doctor.Report) string {
	var b strings.Builder
	printer.Doctor(&b, r)
	return b.String()
}

// TestAnotherClustersCaptureIsNotChecked: when kubectl pointed at
// another cluster than the environment's, what kubectl and helm captured
// (here: no Karpenter CRDs at all) is not checked as if it were this
// cluster's; the context check says where kubectl pointed.
func TestAnotherClustersCaptureIsNotChecked(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	kc := f["k8s-context.json"].(map[string]any)
	kc["clusters"].([]any)[0].(map[string]any)["cluster"].(map[string]any)["server"] = "https://kind-control-plane:6443"
	f["k8s-crds.json"].(map[string]any)["items"] = []any{}
	r := run(t, e, writeState(t, f))
	status := map[string]string{}
	for _, res := range r.Results {
		status[res.Check] = res.Status
		if res.Status == "not-checked" && res.NotChecked != "kubectl pointed at https://kind-control-plane:6443, not at the endpoint of ws-prod (https://0123456789ABCDEF0123456789ABCDEF.gr7.ap-northeast-2.eks.amazonaws.com)" {
			t.Errorf("%s: %q", res.Check, res.NotChecked)
		}
	}
	for check, want := range map[string]string{"doctor/kube-context": "failed", "doctor/crds": "not-checked", "doctor/helm-values": "not-checked", "doctor/kubernetes-version": "ok", "doctor/subnets": "ok"} {
		if status[check] != want {
			t.Errorf("%s: %s, want %s", check, status[check], want)
		}
	}
	if !r.Incomplete() || !r.Errors() {
		t.Errorf("incomplete %v, errors %v", r.Incomplete(), r.Errors())
	}
}

// TestAbsentStatementNamesItsActions: a controller policy statement that
// is absent is named with the actions it grants, so that the finding
// says what the controller cannot do.
func TestAbsentStatementNamesItsActions(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	file := "iam-policy-" + e.Names.ControllerPolicyName("NodeLifecycle") + ".json"
	b, _ := json.Marshal(f[file])
	var doc map[string]any
	json.Unmarshal(b, &doc)
	version := doc["PolicyVersion"].(map[string]any)
	document := version["Document"].(map[string]any)
	var kept []any
	for _, st := range document["Statement"].([]any) {
		if st.(map[string]any)["Sid"] != "AllowScopedDeletion" {
			kept = append(kept, st)
		}
	}
	document["Statement"] = kept
	f[file] = doc
	got := findings(run(t, e, writeState(t, f)))
	if len(got) != 1 || got[0].Expected != "statement AllowScopedDeletion, which grants ec2:TerminateInstances, ec2:DeleteLaunchTemplate" || got[0].Found != "absent" {
		t.Errorf("findings %+v", got)
	}
}

// TestSeveralNodeRoles: a node class with a role of its own (a GPU role
// that reads S3) has its role, policies and access entry captured and
// checked like the environment's node role.
func TestSeveralNodeRoles(t *testing.T) {
	p := *prodEnv(t).Profile
	const s3 = "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"
	p.Karpenter.NodeRoles = map[string]profile.NodeRole{"GPUNodeRole": {Policies: []string{s3}}}
	p.NodeClasses = maps.Clone(p.NodeClasses)
	gpu := p.NodeClasses["default"]
	gpu.Role = "GPUNodeRole"
	p.NodeClasses["gpu"] = gpu
	e := model.Resolve(&p)
	script := doctor.Script(e)
	for _, want := range []string{
		"run iam-extra-node-role-GPUNodeRole.json aws iam get-role --role-name GPUNodeRole --output json",
		"run iam-extra-node-policies-GPUNodeRole.json aws iam list-attached-role-policies --role-name GPUNodeRole --output json",
		"run eks-access-entry-extra-node-GPUNodeRole.json aws eks describe-access-entry --region ap-northeast-2 --cluster-name ws-prod --principal-arn arn:aws:iam::491085395789:role/GPUNodeRole --output json",
	} {
		if !strings.Contains(script, want+"\n") {
			t.Errorf("the capture script lacks %q:\n%s", want, script)
		}
	}
	if r := run(t, e, writeState(t, healthy(t, e))); !strings.HasPrefix(text(r), "doctor prod: 21 checks, 19 ok, 0 failed, 0 skipped, 0 not checked, 2 not applicable\n") {
		t.Errorf("healthy capture:\n%s", text(r))
	}
	f := healthy(t, e)
	f["iam-extra-node-policies-GPUNodeRole.json"] = attached(e.Names, e.Facts.NodeRolePolicies, true)
	get(f, "eks-access-entry-extra-node-GPUNodeRole.json", "accessEntry")["type"] = "STANDARD"
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found)
	}
	want := []string{
		"doctor/node-role role GPUNodeRole: want " + s3 + " attached, found " +
			"arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy, arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy, arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly, arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
		"doctor/node-access access entry arn:aws:iam::491085395789:role/GPUNodeRole: want type EC2_LINUX, found type STANDARD",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestInstanceProfiles: a node class that launches with an instance
// profile has it captured; a capture where it holds the role the profile
// names passes (a wrong role is TestBroken's).
func TestInstanceProfiles(t *testing.T) {
	e := instanceProfileEnv(t)
	if script := doctor.Script(e); !strings.Contains(script, "run iam-instance-profile-legacy-profile.json aws iam get-instance-profile --instance-profile-name legacy-profile --output json\n") {
		t.Errorf("the capture script reads no instance profile:\n%s", script)
	}
	if r := run(t, e, writeState(t, healthy(t, e))); !strings.HasPrefix(text(r), "doctor prod: 21 checks, 20 ok, 0 failed, 0 skipped, 0 not checked, 1 not applicable\n") {
		t.Errorf("healthy capture:\n%s", text(r))
	}
}

// TestCaptureFilesAreDistinct: every command of the capture writes a file
// of its own, whatever the node roles are called. Roles "x" and
// "policies-x" once shared one, and the second overwrote the first.
func TestCaptureFilesAreDistinct(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.NodeRoles = map[string]profile.NodeRole{}
	p.NodeClasses = maps.Clone(p.NodeClasses)
	for _, r := range []string{"x", "policies-x", "role-x", "node-role-x", "node-policies-x", "extra-node-x"} {
		p.Karpenter.NodeRoles[r] = profile.NodeRole{}
		nc := p.NodeClasses["default"]
		nc.Role = r
		p.NodeClasses["c-"+r] = nc
	}
	seen := map[string]string{}
	runs := 0
	for line := range strings.Lines(doctor.Script(model.Resolve(&p))) {
		file, cmd, ok := strings.Cut(strings.TrimPrefix(line, "run "), " ")
		if !ok || !strings.HasPrefix(line, "run ") {
			continue
		}
		runs++
		if other, dup := seen[file]; dup {
			t.Errorf("%s is written by both\n  %s  and\n  %s", file, other, strings.TrimSpace(cmd))
		}
		seen[file] = strings.TrimSpace(cmd)
	}
	if runs < 30 {
		t.Fatalf("the script runs %d commands; the test reads none of them", runs)
	}
}

// TestNodeGroupsByEKSLabels: a profile that knows its node groups by the
// labels EKS sets on their nodes (eks.amazonaws.com/nodegroup, as import
// picks it, and eks.amazonaws.com/capacityType) is healthy on a capture
// whose describe-nodegroup lists none of them, as EKS prints it; a value
// EKS would not set is a finding whose fix is the profile's, never an
// update-nodegroup-config EKS refuses.
func TestNodeGroupsByEKSLabels(t *testing.T) {
	p := *prodEnv(t).Profile
	p.NodeGroups = maps.Clone(p.NodeGroups)
	sys := p.NodeGroups["system"]
	sys.Labels = map[string]string{"eks.amazonaws.com/nodegroup": "system", "eks.amazonaws.com/capacityType": "ON_DEMAND"}
	p.NodeGroups["system"] = sys
	e := model.Resolve(&p)
	if r := run(t, e, writeState(t, healthy(t, e))); len(findings(r)) != 0 {
		t.Errorf("healthy capture:\n%s", text(r))
	}
	sys.Labels = map[string]string{"eks.amazonaws.com/nodegroup": "ng-system", "node.kubernetes.io/role": "system"}
	p.NodeGroups["system"] = sys
	e = model.Resolve(&p)
	f := healthy(t, e)
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found+"; "+fd.Hint)
	}
	want := []string{
		"doctor/node-groups node group system: want label eks.amazonaws.com/nodegroup=ng-system, found eks.amazonaws.com/nodegroup=system (set by EKS on every node of the group); EKS sets eks.amazonaws.com/nodegroup itself: select the group by eks.amazonaws.com/nodegroup=system in the profile",
		"doctor/node-groups node group system: want label node.kubernetes.io/role=system, found none; EKS refuses node group labels under kubernetes.io/, k8s.io/ and eks.amazonaws.com/: select the group by a label of its own",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestValuesByMeaning: a release whose values leave keys to the chart's
// defaults (replicas, logLevel, serviceAccount.create, as a team that
// installed by hand writes them) and spell a number as a string is
// healthy; a key that means something else is the one finding.
func TestValuesByMeaning(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	values := f["helm-values.json"].(map[string]any)
	for _, k := range []string{"replicas", "logLevel"} {
		if _, ok := values[k]; !ok {
			t.Fatalf("the healthy values hold no %s to leave out", k)
		}
		delete(values, k)
	}
	delete(values["serviceAccount"].(map[string]any), "create")
	requests := values["controller"].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)
	requests["cpu"] = 1
	if r := run(t, e, writeState(t, f)); len(findings(r)) != 0 {
		t.Errorf("values by meaning:\n%s", text(r))
	}
	values["logLevel"] = "debug"
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+": want "+fd.Expected+", found "+fd.Found)
	}
	if want := []string{`doctor/helm-values: want logLevel = "info", found logLevel = "debug"`}; !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAdoptedGettingStartedQueue: the queue and rules of upstream's
// getting-started stack, adopted by the profile, are judged by what they
// do: the stack's EC2InterruptionPolicy lets EventBridge send, and rules
// named Karpenter-<cluster>-ScheduledChangeRule-<suffix> target the
// queue. The one true finding is the rule the stack of an older release
// lacks (capacity reservation interruptions, read from 1.10), with the
// commands that add it, never a deploy of the bundle's stack.
func TestAdoptedGettingStartedQueue(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.ExistingInterruptionQueue = "ws-prod"
	e := model.Resolve(&p)
	n := e.Names
	f := healthy(t, e)
	f["sqs-queue.json"] = map[string]any{"Attributes": map[string]any{"Policy": mustJSON(t, map[string]any{
		"Version": "2008-10-17", "Id": "EC2InterruptionPolicy",
		"Statement": []any{
			map[string]any{"Effect": "Allow", "Principal": map[string]any{"Service": []any{"events.amazonaws.com", "sqs.amazonaws.com"}}, "Action": "sqs:SendMessage", "Resource": n.QueueARN},
			map[string]any{"Sid": "DenyHTTP", "Effect": "Deny", "Action": "sqs:*", "Resource": n.QueueARN, "Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": false}}, "Principal": "*"},
		}})}}
	var rules, names []any
	for _, r := range []struct{ logical, source, detail string }{
		{"ScheduledChangeRule", "aws.health", "AWS Health Event"},
		{"SpotInterruptionRule", "aws.ec2", "EC2 Spot Instance Interruption Warning"},
		{"RebalanceRule", "aws.ec2", "EC2 Instance Rebalance Recommendation"},
		{"InstanceStateChangeRule", "aws.ec2", "EC2 Instance State-change Notification"},
	} {
		name := "Karpenter-ws-prod-" + r.logical + "-1X2Y3Z4W5V6U"
		rules = append(rules, map[string]any{"Name": name, "State": "ENABLED",
			"EventPattern": mustJSON(t, map[string]any{"source": []any{r.source}, "detail-type": []any{r.detail}})})
		names = append(names, name)
	}
	f["events-rules.json"] = map[string]any{"Rules": rules}
	f["events-rules-by-target.json"] = map[string]any{"RuleNames": names}
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found+"; "+fd.Hint)
	}
	want := []string{`doctor/interruption events aws.ec2 / EC2 Capacity Reservation Instance Interruption Warning: want a rule for them that targets queue ws-prod, found none; ` +
		`aws events put-rule --region ap-northeast-2 --name KarpenterCapacityReservationInterruption-ws-prod --event-pattern '{"detail-type":["EC2 Capacity Reservation Instance Interruption Warning"],"source":["aws.ec2"]}' && ` +
		`aws events put-targets --region ap-northeast-2 --rule KarpenterCapacityReservationInterruption-ws-prod --targets 'Id=KarpenterInterruptionQueueTarget,Arn=arn:aws:sqs:ap-northeast-2:491085395789:ws-prod'`}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A queue policy that lets EventBridge send only for the account's
	// rules is evaluated as EventBridge asks, not skipped for having a
	// condition; one scoped to another account's rules is a finding
	// naming the key.
	sourced := func(rules string) map[string]any {
		return map[string]any{"Attributes": map[string]any{"Policy": mustJSON(t, map[string]any{
			"Version": "2012-10-17",
			"Statement": []any{
				map[string]any{"Sid": "EventBridge", "Effect": "Allow", "Principal": map[string]any{"Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage", "Resource": n.QueueARN,
					"Condition": map[string]any{"ArnLike": map[string]any{"aws:SourceArn": rules}}},
				map[string]any{"Sid": "DenyHTTP", "Effect": "Deny", "Action": "sqs:*", "Resource": n.QueueARN, "Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": false}}, "Principal": "*"},
			}})}}
	}
	f["sqs-queue.json"] = sourced("arn:aws:events:ap-northeast-2:491085395789:rule/Karpenter-ws-prod-*")
	got = nil
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found+"; "+fd.Hint)
	}
	if !slices.Equal(got, want) {
		t.Errorf("a policy for the account's rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f["sqs-queue.json"] = sourced("arn:aws:events:ap-northeast-2:111122223333:rule/*")
	got = nil
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		if fd.Resource == "queue ws-prod" {
			found, _, _ := strings.Cut(fd.Found, ": {")
			got = append(got, fd.Rule+" "+fd.Resource+": "+found)
		}
	}
	if want := []string{`doctor/interruption queue ws-prod: sqs:SendMessage for rule arn:aws:events:ap-northeast-2:491085395789:rule/Karpenter-ws-prod-ScheduledChangeRule-1X2Y3Z4W5V6U is not allowed ` +
		`(closest: queue policy statement "EventBridge" fails on ArnLike aws:SourceArn "arn:aws:events:ap-northeast-2:111122223333:rule/*" (the request has "arn:aws:events:ap-northeast-2:491085395789:rule/Karpenter-ws-prod-ScheduledChangeRule-1X2Y3Z4W5V6U"))`}; !slices.Equal(got, want) {
		t.Errorf("a policy for another account's rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestQueuePolicyAsAWSReadsIt: the adopted queue's policy is asked
// EventBridge's delivery as AWS makes it. A Deny with NotPrincipal that
// does not name EventBridge denies it; conditions on the keys a service
// sends (aws:PrincipalServiceName, aws:PrincipalIsAWSService) are met; a
// deny on the time AWS puts in every request applies.
func TestQueuePolicyAsAWSReadsIt(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.ExistingInterruptionQueue = "ws-prod"
	e := model.Resolve(&p)
	n := e.Names
	allow := map[string]any{"Sid": "EventBridge", "Effect": "Allow", "Principal": map[string]any{"Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage", "Resource": n.QueueARN}
	queue := func(statements ...any) map[string]any {
		return map[string]any{"Attributes": map[string]any{"Policy": mustJSON(t, map[string]any{"Version": "2012-10-17", "Statement": statements})}}
	}
	queueFinding := func(f map[string]any) string {
		for _, fd := range findings(run(t, e, writeState(t, f))) {
			if fd.Resource == "queue ws-prod" {
				found, _, _ := strings.Cut(fd.Found, " (")
				return found
			}
		}
		return ""
	}
	blocked := "sqs:SendMessage for rule arn:aws:events:ap-northeast-2:491085395789:rule/Karpenter-ws-prod-ScheduledChangeRule-1X2Y3Z4W5V6U is not allowed"
	for name, c := range map[string]struct {
		policy map[string]any
		want   string
	}{
		"a Deny to all but the account's roles": {queue(allow, map[string]any{"Sid": "OnlyOurRoles", "Effect": "Deny", "NotPrincipal": map[string]any{"AWS": "arn:aws:iam::491085395789:root"}, "Action": "sqs:*", "Resource": n.QueueARN}), blocked},
		"a Deny to all but EventBridge":         {queue(allow, map[string]any{"Effect": "Deny", "NotPrincipal": map[string]any{"Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage", "Resource": n.QueueARN}), ""},
		"an Allow for AWS services only": {queue(map[string]any{"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage", "Resource": n.QueueARN,
			"Condition": map[string]any{"Bool": map[string]any{"aws:PrincipalIsAWSService": "true"}, "StringEquals": map[string]any{"aws:PrincipalServiceName": "events.amazonaws.com"}}}), ""},
		"a Deny after a day gone by": {queue(allow, map[string]any{"Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": n.QueueARN,
			"Condition": map[string]any{"DateGreaterThan": map[string]any{"aws:CurrentTime": "2020-01-01T00:00:00Z"}}}), blocked},
	} {
		f := healthy(t, e)
		f["sqs-queue.json"] = c.policy
		rule := "Karpenter-ws-prod-ScheduledChangeRule-1X2Y3Z4W5V6U"
		f["events-rules.json"] = map[string]any{"Rules": []any{map[string]any{"Name": rule, "State": "ENABLED",
			"EventPattern": mustJSON(t, map[string]any{"source": []any{"aws.health"}, "detail-type": []any{"AWS Health Event"}})}}}
		f["events-rules-by-target.json"] = map[string]any{"RuleNames": []any{rule}}
		if got := queueFinding(f); got != c.want {
			t.Errorf("%s: the queue finding is %q, want %q", name, got, c.want)
		}
	}
}

// seedPolicy is a controller policy as a team wrote it by hand from the
// docs: the bundle's statements in one inline policy, with the cluster
// tag under the wrong key and RunInstances without the spot request.
func seedPolicy(t *testing.T, e *model.Env) map[string]any {
	var statements []any
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
		data, err := json.Marshal(cp.Document)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.ReplaceAll(string(data), "kubernetes.io/cluster/"+e.Names.Cluster, "karpenter.sh/cluster/"+e.Names.Cluster))
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, st := range doc["Statement"].([]any) {
			s := st.(map[string]any)
			if res, ok := s["Resource"].([]any); ok {
				s["Resource"] = slices.DeleteFunc(res, func(r any) bool { return strings.HasSuffix(r.(string), ":spot-instances-request/*") })
			}
			statements = append(statements, s)
		}
	}
	return map[string]any{"Version": "2012-10-17", "Statement": statements}
}

// TestOwnControllerRole: with existingControllerRole, doctor evaluates
// the controller's requests against the role's own policies, the ones
// the team wrote, and names what they do not allow and the statement
// that came closest; karpgen's policy names are not asked for.
func TestOwnControllerRole(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.ExistingControllerRole = "PlatformKarpenter"
	e := model.Resolve(&p)
	if script, want := doctor.Script(e), `run iam-controller-role-details.json aws iam get-account-authorization-details --filter Role LocalManagedPolicy --query "{Roles: RoleDetailList[?RoleName=='PlatformKarpenter'], Policies: Policies}" --output json`+"\n"; !strings.Contains(script, want) {
		t.Errorf("the capture script lacks %q", want)
	}
	f := healthy(t, e)
	f["iam-controller-role-details.json"] = map[string]any{
		"Roles":    []any{map[string]any{"RoleName": "PlatformKarpenter", "RolePolicyList": []any{map[string]any{"PolicyName": "karpenter", "PolicyDocument": seedPolicy(t, e)}}, "AttachedManagedPolicies": []any{}}},
		"Policies": []any{},
	}
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found+"; "+fd.Hint)
	}
	want := []string{
		`doctor/controller-policy role PlatformKarpenter: want its policies allow ec2:RunInstances on instance, network-interface, volume, launch-template; ec2:CreateFleet on fleet, instance, volume, launch-template; ` +
			`ec2:CreateLaunchTemplate on launch-template; ec2:CreateTags on launch-template, fleet, volume, network-interface, instance; ec2:TerminateInstances on instance; ec2:DeleteLaunchTemplate on launch-template; ` +
			`iam:CreateInstanceProfile on instance-profile; iam:TagInstanceProfile on instance-profile; iam:AddRoleToInstanceProfile on instance-profile; iam:RemoveRoleFromInstanceProfile on instance-profile; iam:DeleteInstanceProfile on instance-profile, ` +
			`found the statements that take them in test tag karpenter.sh/cluster/ws-prod, which the requests do not carry ` +
			`(closest: inline policy karpenter statement "AllowScopedEC2InstanceActionsWithTags" fails on StringEquals aws:RequestTag/karpenter.sh/cluster/ws-prod "owned" (the request has none)); ` +
			`write it as the bundle's policy KarpenterControllerNodeLifecyclePolicy-ws-prod statement "AllowScopedEC2InstanceActionsWithTags" does (out/prod/iam/controller-policy-node-lifecycle.json), or attach the bundle's policies`,
		`doctor/controller-policy role PlatformKarpenter: want its policies allow ec2:RunInstances on spot-instances-request; ec2:CreateTags on spot-instances-request, ` +
			`found no statement of its policies takes these requests in (their actions on these resources); ` +
			`write it as the bundle's policy KarpenterControllerNodeLifecyclePolicy-ws-prod statement "AllowScopedEC2InstanceActionsWithTags" does (out/prod/iam/controller-policy-node-lifecycle.json), or attach the bundle's policies`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The bundle's own policies, attached as the bundle attaches them,
	// allow everything: no finding.
	var attached []any
	var managed []any
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, e.Names, e.IAMGates) {
		arn := e.Names.PolicyARN(cp.Name)
		attached = append(attached, map[string]any{"PolicyName": cp.Name, "PolicyArn": arn})
		managed = append(managed, map[string]any{"PolicyName": cp.Name, "Arn": arn, "PolicyVersionList": []any{map[string]any{"Document": cp.Document, "IsDefaultVersion": true}}})
	}
	f["iam-controller-role-details.json"] = map[string]any{
		"Roles":    []any{map[string]any{"RoleName": "PlatformKarpenter", "RolePolicyList": []any{}, "AttachedManagedPolicies": attached}},
		"Policies": managed,
	}
	if r := run(t, e, writeState(t, f)); len(findings(r)) != 0 {
		t.Errorf("the bundle's policies attached:\n%s", text(r))
	}
}

// TestHelmless: a controller installed with helm template | kubectl apply
// has no release; doctor checks the values from its Deployment, whose
// FEATURE_GATES is made here from upstream's own template line of the
// profile's release with the bundle's values, as helm template makes it.
func TestHelmless(t *testing.T) {
	e := prodEnv(t)
	tmpl, err := os.ReadFile(filepath.Join("..", "..", "reference", "karpenter", "v"+e.Facts.NewestPatch().String(), "chart", "templates", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`name: FEATURE_GATES\s+value: "([^"]+)"`).FindSubmatch(tmpl)
	if line == nil {
		t.Fatal("the chart's deployment.yaml has no FEATURE_GATES")
	}
	gates := generators.HelmValues(e)["settings"].(map[string]any)["featureGates"].(map[string]any)
	gatesEnv := regexp.MustCompile(`\{\{ \.Values\.settings\.featureGates\.(\w+) \}\}`).ReplaceAllStringFunc(string(line[1]), func(m string) string {
		return fmt.Sprint(gates[regexp.MustCompile(`featureGates\.(\w+)`).FindStringSubmatch(m)[1]])
	})
	f := healthy(t, e)
	f["helm-values.json"] = captureError("CommandFailed", "Error: release: not found")
	dep := f["k8s-karpenter-deployment.json"].(map[string]any)["spec"].(map[string]any)
	dep["replicas"] = 2
	ct := dep["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	ct["env"] = append(ct["env"].([]any), map[string]any{"name": "LOG_LEVEL", "value": "info"}, map[string]any{"name": "FEATURE_GATES", "value": gatesEnv})
	r := run(t, e, writeState(t, f))
	for _, res := range r.Results {
		if res.Check == "doctor/helm-values" && (res.Status != "ok" || len(res.Findings) != 0) {
			t.Errorf("helm-values on a Helm-less install: %s %s %+v", res.Status, res.Skipped, res.Findings)
		}
	}
	ct["env"].([]any)[len(ct["env"].([]any))-1].(map[string]any)["value"] = strings.Replace(gatesEnv, "ReservedCapacity=true", "ReservedCapacity=false", 1)
	dep["replicas"] = 1
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found)
	}
	want := []string{
		"doctor/helm-values deployment karpenter/karpenter (installed without Helm): want replicas 2, found replicas 1",
		"doctor/helm-values deployment karpenter/karpenter (installed without Helm): want feature gate reservedCapacity=true (FEATURE_GATES), found reservedCapacity=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAdoptedNodeRoleByWhatItAllows: a node role the profile adopts from
// an earlier getting-started stack has AmazonEC2ContainerRegistryReadOnly
// where the minor's bundle attaches PullOnly: it allows every pull, so it
// is no finding. A policy it lacks outright still is, and a role the
// bundle creates is held to the minor's own list.
func TestAdoptedNodeRoleByWhatItAllows(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.ExistingNodeRole = "eksctl-ws-prod-nodegroup-NodeInstanceRole"
	e := model.Resolve(&p)
	n := e.Names
	swap := func(f map[string]any, drop ...string) {
		var policies []any
		for _, pol := range f["iam-node-role-policies.json"].(map[string]any)["AttachedPolicies"].([]any) {
			arn := pol.(map[string]any)["PolicyArn"].(string)
			if slices.Contains(drop, arn) {
				continue
			}
			if arn == n.ManagedPolicyARN("AmazonEC2ContainerRegistryPullOnly") {
				pol = map[string]any{"PolicyName": "AmazonEC2ContainerRegistryReadOnly", "PolicyArn": n.ManagedPolicyARN("AmazonEC2ContainerRegistryReadOnly")}
			}
			policies = append(policies, pol)
		}
		f["iam-node-role-policies.json"].(map[string]any)["AttachedPolicies"] = policies
	}
	f := healthy(t, e)
	swap(f)
	if r := run(t, e, writeState(t, f)); len(findings(r)) != 0 {
		t.Errorf("ReadOnly for PullOnly on an adopted role:\n%s", text(r))
	}
	f = healthy(t, e)
	swap(f, n.ManagedPolicyARN("AmazonEKS_CNI_Policy"))
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected)
	}
	if want := []string{"doctor/node-role role eksctl-ws-prod-nodegroup-NodeInstanceRole: want " + n.ManagedPolicyARN("AmazonEKS_CNI_Policy") + " attached"}; !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e = prodEnv(t)
	f = healthy(t, e)
	swap(f)
	got = nil
	for _, fd := range findings(run(t, e, writeState(t, f))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected)
	}
	if want := []string{"doctor/node-role role KarpenterNodeRole-ws-prod: want " + e.Names.ManagedPolicyARN("AmazonEC2ContainerRegistryPullOnly") + " attached"}; !slices.Equal(got, want) {
		t.Errorf("a created role:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTeamNodeRolePolicies: an adopted node role whose team wrote the
// VPC CNI's permissions as a policy of its own meets the minor's
// AmazonEKS_CNI_Policy by what that policy allows; one statement short
// (no ec2:CreateTags on network interfaces) is a finding naming the
// request and the closest statement; a CNI with a role of its own asks
// nothing of the node role.
func TestTeamNodeRolePolicies(t *testing.T) {
	p := *prodEnv(t).Profile
	role := "eksctl-ws-prod-nodegroup-NodeInstanceRole"
	p.Karpenter.ExistingNodeRole = role
	e := model.Resolve(&p)
	n := e.Names
	if script := doctor.Script(e); !strings.Contains(script, `run iam-node-role-details.json aws iam get-account-authorization-details --filter Role LocalManagedPolicy --query "{Roles: RoleDetailList[?RoleName=='`+role+`'], Policies: Policies}" --output json`) {
		t.Fatalf("the capture does not read the adopted node role's own policies:\n%s", script)
	}
	cni := n.ManagedPolicyARN("AmazonEKS_CNI_Policy")
	withOwn := func(statements ...any) map[string]any {
		f := healthy(t, e)
		att := f["iam-node-role-policies.json"].(map[string]any)
		att["AttachedPolicies"] = slices.DeleteFunc(slices.Clone(att["AttachedPolicies"].([]any)), func(x any) bool {
			return x.(map[string]any)["PolicyArn"] == cni
		})
		doc := map[string]any{"Version": "2012-10-17", "Statement": statements}
		f["iam-node-role-details.json"] = map[string]any{
			"Roles":    []any{map[string]any{"RoleName": role, "RolePolicyList": []any{map[string]any{"PolicyName": "vpc-cni", "PolicyDocument": doc}}, "AttachedManagedPolicies": []any{}}},
			"Policies": []any{},
		}
		return f
	}
	describe := map[string]any{"Sid": "Eni", "Effect": "Allow", "Resource": "*", "Action": []any{
		"ec2:AssignPrivateIpAddresses", "ec2:AttachNetworkInterface", "ec2:CreateNetworkInterface", "ec2:DeleteNetworkInterface",
		"ec2:Describe*", "ec2:DetachNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute", "ec2:UnassignPrivateIpAddresses"}}
	tag := map[string]any{"Sid": "TagEni", "Effect": "Allow", "Action": "ec2:CreateTags", "Resource": "arn:aws:ec2:*:*:network-interface/*"}
	if r := run(t, e, writeState(t, withOwn(describe, tag))); len(findings(r)) != 0 {
		t.Errorf("the CNI's permissions in the team's inline policy:\n%s", text(r))
	}
	// The same, held to the cluster's region: a node calls its own
	// region, which its requests carry as aws:RequestedRegion.
	inRegion := func(st map[string]any) map[string]any {
		st = maps.Clone(st)
		st["Condition"] = map[string]any{"StringEquals": map[string]any{"aws:RequestedRegion": n.Region}}
		return st
	}
	if r := run(t, e, writeState(t, withOwn(inRegion(describe), inRegion(tag)))); len(findings(r)) != 0 {
		t.Errorf("the CNI's permissions held to the region:\n%s", text(r))
	}
	wrongTag := map[string]any{"Sid": "TagEni", "Effect": "Allow", "Action": "ec2:CreateTags", "Resource": "arn:aws:ec2:*:*:network-interface/*",
		"Condition": map[string]any{"StringEquals": map[string]any{"aws:ResourceTag/cluster": "ws-prod"}}}
	var got []string
	for _, fd := range findings(run(t, e, writeState(t, withOwn(describe, wrongTag)))) {
		got = append(got, fd.Rule+" "+fd.Resource+": want "+fd.Expected+", found "+fd.Found+"; fix "+fd.Hint)
	}
	want := []string{"doctor/node-role role " + role + ": want " + cni + " attached, found " +
		n.ManagedPolicyARN("AmazonEKSWorkerNodePolicy") + ", " + n.ManagedPolicyARN("AmazonEC2ContainerRegistryPullOnly") + ", " + n.ManagedPolicyARN("AmazonSSMManagedInstanceCore") +
		`; its policies do not allow ec2:CreateTags (closest: inline policy vpc-cni statement "TagEni" fails on StringEquals aws:ResourceTag/cluster "ws-prod" (the request has none))` +
		"; fix aws iam attach-role-policy --role-name " + role + " --policy-arn " + cni}
	if !slices.Equal(got, want) {
		t.Errorf("the CNI's tagging scoped by a tag:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f := withOwn()
	f["k8s-aws-node-serviceaccount.json"] = map[string]any{"metadata": map[string]any{"name": "aws-node", "namespace": "kube-system",
		"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::" + n.Account + ":role/vpc-cni"}}}
	if r := run(t, e, writeState(t, f)); len(findings(r)) != 0 {
		t.Errorf("aws-node with a role of its own (IRSA):\n%s", text(r))
	}
}

// TestIAMHintFollowsItsOwner: where the capture says the bundle's stack
// does not exist but the controller role does, the IAM is not the
// stack's (a Terraform shop applied the module): a fix deploys it where
// it lives, never a template that would create each name again.
func TestIAMHintFollowsItsOwner(t *testing.T) {
	e := prodEnv(t)
	n := e.Names
	describe := "cfn-stack-" + n.Stack + ".json"
	f := healthy(t, e)
	f["iam-node-role.json"] = captureError("NoSuchEntity", "The role with name "+n.NodeRole+" cannot be found.")
	got := findings(run(t, e, writeState(t, f)))
	if len(got) != 1 || !strings.HasPrefix(got[0].Hint, "aws cloudformation deploy ") {
		t.Fatalf("with the stack not captured: %+v", got)
	}
	f[describe] = captureError("ValidationError", "Stack with id "+n.Stack+" does not exist")
	got = findings(run(t, e, writeState(t, f)))
	want := "terraform '-chdir=out/prod/iam/terraform' apply (stack " + n.Stack + " does not exist: the module holds this IAM; never deploy the template beside it)"
	if len(got) != 1 || got[0].Hint != want {
		t.Errorf("with the stack absent and the controller role present:\n%+v\nwant hint %q", got, want)
	}
}

// TestTagHintFollowsTerraform: where the profile says Terraform makes the
// network, a missing discovery tag is fixed in the module's input, never
// with the AWS CLI, whose tag the next apply would remove.
func TestTagHintFollowsTerraform(t *testing.T) {
	e := prodEnv(t)
	f := healthy(t, e)
	f["ec2-security-groups.json"].(map[string]any)["SecurityGroups"].([]any)[0].(map[string]any)["Tags"] = []any{}
	if got := findings(run(t, e, writeState(t, f))); len(got) != 1 || !strings.HasPrefix(got[0].Hint, "tag the cluster's node security group: aws ec2 create-tags ") {
		t.Fatalf("without owners: %+v", got)
	}
	e.Profile.Cluster.Owners.Terraform = &profile.TerraformOwner{VPCModule: "network", EKSModule: "cluster", Dir: "infra/prod"}
	got := findings(run(t, e, writeState(t, f)))
	want := `tag the cluster's node security group: Terraform makes them (cluster.owners.terraform): add "karpenter.sh/discovery" = "ws-prod" to node_security_group_tags of module.cluster, then terraform '-chdir=infra/prod' apply (a tag added with the AWS CLI goes at the next apply)`
	if len(got) != 1 || got[0].Hint != want {
		t.Errorf("with Terraform's modules:\n%+v\nwant hint %q", got, want)
	}
}

// TestAdoptedAssociation: a profile that adopts the service account's
// association (eksctl's podIdentityAssociations made it) is checked for
// that association, by its ID, and creates none.
func TestAdoptedAssociation(t *testing.T) {
	p := *prodEnv(t).Profile
	p.Karpenter.ExistingControllerRole = "ws-prod-karpenter"
	p.Karpenter.ExistingPodIdentityAssociation = "a-0abc1def2ghi3jkl4"
	e := model.Resolve(&p)
	trust := func(f map[string]any) []string {
		var got []string
		for _, fd := range findings(run(t, e, writeState(t, f))) {
			if fd.Rule == "doctor/controller-trust" {
				got = append(got, fd.Resource+": want "+fd.Expected+", found "+fd.Found+"; "+fd.Hint)
			}
		}
		return got
	}
	f := healthy(t, e)
	want := []string{"pod identity association of karpenter/karpenter: want a-0abc1def2ghi3jkl4 (karpenter.existingPodIdentityAssociation), found a-0123; " +
		"set karpenter.existingPodIdentityAssociation to the ID the service account's association has, or drop it so that the bundle creates one"}
	if got := trust(f); !slices.Equal(got, want) {
		t.Errorf("another association:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f["eks-pod-identity-associations.json"].(map[string]any)["associations"].([]any)[0].(map[string]any)["associationId"] = "a-0abc1def2ghi3jkl4"
	f["eks-pod-identity-association-a-0abc1def2ghi3jkl4.json"] = map[string]any{"association": map[string]any{"associationId": "a-0abc1def2ghi3jkl4", "namespace": "karpenter",
		"serviceAccount": "karpenter", "roleArn": "arn:aws:iam::491085395789:role/ws-prod-karpenter", "clusterName": "ws-prod"}}
	if got := trust(f); len(got) != 0 {
		t.Errorf("the adopted association binding the adopted role:\n%s", strings.Join(got, "\n"))
	}
	// Bound to another role, the fix names the adoption of that role.
	f["eks-pod-identity-association-a-0abc1def2ghi3jkl4.json"].(map[string]any)["association"].(map[string]any)["roleArn"] = "arn:aws:iam::491085395789:role/other"
	want = []string{"pod identity association a-0abc1def2ghi3jkl4 (karpenter/karpenter): want role arn:aws:iam::491085395789:role/ws-prod-karpenter, found role arn:aws:iam::491085395789:role/other; " +
		"aws eks update-pod-identity-association --region ap-northeast-2 --cluster-name ws-prod --association-id a-0abc1def2ghi3jkl4 --role-arn arn:aws:iam::491085395789:role/ws-prod-karpenter " +
		`(or adopt both: karpenter.existingControllerRole: "other", karpenter.existingPodIdentityAssociation: "a-0abc1def2ghi3jkl4")`}
	if got := trust(f); !slices.Equal(got, want) {
		t.Errorf("bound to another role:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
