package generators_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"

	"sigs.k8s.io/yaml"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// TestBundleConsistency renders every minor × auth × interruption ×
// partition × node access mode and checks, from the files alone, that
// what one artifact names the others allow: the EC2NodeClass role is the
// iam:PassRole resource and the access entry's principal; the Helm queue
// is the policy's queue and the rules' target; the service account the
// chart creates is the one the trust policy and association name.
func TestBundleConsistency(t *testing.T) {
	eachVariant(t, func(t *testing.T, variant func() *profile.Profile) {
		p := variant()
		p.Karpenter.Namespace, p.Karpenter.ServiceAccount = "kube-system", "karpenter-controller"
		b, err := generators.Render(model.Resolve(p))
		if err != nil {
			t.Fatal(err)
		}
		checkBundle(t, b, p)
	})
}

// eachVariant runs f, as a subtest named after the variant, for every
// minor × auth × interruption × partition × node access mode (under
// -short, of the oldest and the newest minor only); variant makes a
// fresh test profile of it each time it is called.
func eachVariant(t *testing.T, f func(t *testing.T, variant func() *profile.Profile)) {
	for i := range facts.Minors {
		if testing.Short() && i != 0 && i != len(facts.Minors)-1 {
			continue
		}
		m := &facts.Minors[i]
		for _, auth := range []string{profile.AuthPodIdentity, profile.AuthIRSA} {
			for _, queue := range []bool{true, false} {
				for _, region := range regions {
					for _, access := range []string{profile.AccessEntry, profile.AWSAuth} {
						t.Run(fmt.Sprintf("%s/%s/queue=%v/%s/%s", m.Minor, auth, queue, region, access), func(t *testing.T) {
							f(t, func() *profile.Profile {
								p := testProfile(strings.TrimPrefix(m.Reference, "v"), region, "ws-"+strings.ReplaceAll(m.Minor, ".", "-"))
								p.Karpenter.Auth, p.Karpenter.InterruptionQueue, p.Karpenter.NodeAccess = auth, queue, access
								return p
							})
						})
					}
				}
			}
		}
	}
}

func checkBundle(t *testing.T, b *model.Bundle, p *profile.Profile) {
	t.Helper()
	var values struct {
		Settings struct {
			ClusterName       string `json:"clusterName"`
			InterruptionQueue string `json:"interruptionQueue"`
		} `json:"settings"`
		ServiceAccount struct {
			Name        string            `json:"name"`
			Annotations map[string]string `json:"annotations"`
		} `json:"serviceAccount"`
	}
	fromYAML(t, b.Files["helm/karpenter-values.yaml"], &values)

	// Roles: node class role = PassRole resource = access entry principal.
	var nodeClass struct {
		Spec struct {
			Role string `json:"role"`
		} `json:"spec"`
	}
	fromYAML(t, b.Files["ec2nodeclasses.yaml"], &nodeClass)
	passRole := ""
	var queueResources []string
	for path, data := range b.Files {
		if !strings.HasPrefix(path, "iam/controller-policy-") {
			continue
		}
		var doc struct {
			Statement []struct {
				Action   any `json:"Action"`
				Resource any `json:"Resource"`
			} `json:"Statement"`
		}
		fromJSON(t, data, &doc)
		for _, s := range doc.Statement {
			actions := fmt.Sprint(s.Action)
			if strings.Contains(actions, "iam:PassRole") {
				passRole = s.Resource.(string)
			}
			if strings.Contains(actions, "sqs:ReceiveMessage") {
				queueResources = append(queueResources, s.Resource.(string))
			}
		}
	}
	if !strings.HasSuffix(passRole, ":role/"+nodeClass.Spec.Role) || nodeClass.Spec.Role == "" {
		t.Errorf("EC2NodeClass role %q is not the PassRole resource %q", nodeClass.Spec.Role, passRole)
	}
	if p.Karpenter.NodeAccess == profile.AccessEntry {
		var entry map[string]string
		fromJSON(t, b.Files["iam/access-entry.json"], &entry)
		if entry["principalArn"] != passRole || entry["type"] != "EC2_LINUX" {
			t.Errorf("access entry %v does not name the node role %q", entry, passRole)
		}
	} else {
		var mapRoles []map[string]any
		fromYAML(t, b.Files["iam/aws-auth-maproles.yaml"], &mapRoles)
		if len(mapRoles) != 1 || mapRoles[0]["rolearn"] != passRole {
			t.Errorf("aws-auth mapRoles %v does not name the node role %q", mapRoles, passRole)
		}
	}

	// Queue: Helm queue = policy queue = rules' target = queue policy.
	q := values.Settings.InterruptionQueue
	if !p.Karpenter.InterruptionQueue {
		if q != "" || len(queueResources) > 0 || b.Files["iam/interruption-rules.json"] != nil {
			t.Errorf("interruption off, yet queue %q, policy %v, rules present %v", q, queueResources, b.Files["iam/interruption-rules.json"] != nil)
		}
	} else {
		if len(queueResources) != 1 || !strings.HasSuffix(queueResources[0], ":"+q) || q == "" {
			t.Fatalf("Helm queue %q is not the policy's queue %v", q, queueResources)
		}
		arn := queueResources[0]
		var rules []struct {
			Targets []struct{ Arn string }
		}
		fromJSON(t, b.Files["iam/interruption-rules.json"], &rules)
		for _, r := range rules {
			if len(r.Targets) != 1 || r.Targets[0].Arn != arn {
				t.Errorf("rule targets %v, want %s", r.Targets, arn)
			}
		}
		if !strings.Contains(string(b.Files["iam/interruption-queue-policy.json"]), `"Resource": "`+arn+`"`) {
			t.Errorf("queue policy does not name %s", arn)
		}
	}

	// Controller identity: the chart's service account is the trusted one.
	ns, sa := p.Karpenter.Namespace, values.ServiceAccount.Name
	if sa != p.Karpenter.ServiceAccount || values.Settings.ClusterName != p.Cluster.Name {
		t.Errorf("Helm service account %q / cluster %q", sa, values.Settings.ClusterName)
	}
	n := model.Resolve(p).Names
	trust := string(b.Files["iam/controller-trust-policy.json"])
	if p.Karpenter.Auth == profile.AuthIRSA {
		if values.ServiceAccount.Annotations["eks.amazonaws.com/role-arn"] != n.ControllerRoleARN {
			t.Errorf("IRSA annotation %v, want %s", values.ServiceAccount.Annotations, n.ControllerRoleARN)
		}
		if !strings.Contains(trust, `:sub": "system:serviceaccount:`+ns+":"+sa+`"`) || !strings.Contains(trust, `:aud": "sts.amazonaws.com"`) {
			t.Errorf("IRSA trust does not name %s/%s:\n%s", ns, sa, trust)
		}
	} else {
		var assoc map[string]string
		fromJSON(t, b.Files["iam/pod-identity-association.json"], &assoc)
		if assoc["namespace"] != ns || assoc["serviceAccount"] != sa || assoc["roleArn"] != n.ControllerRoleARN || assoc["clusterName"] != p.Cluster.Name {
			t.Errorf("pod identity association %v", assoc)
		}
		if len(values.ServiceAccount.Annotations) != 0 || !strings.Contains(trust, "pods.eks.amazonaws.com") || !strings.Contains(trust, "sts:TagSession") {
			t.Errorf("pod identity trust or annotations wrong:\n%s\n%v", trust, values.ServiceAccount.Annotations)
		}
	}
	cfn := string(b.Files["iam/cloudformation.yaml"])
	for _, want := range []string{"RoleName: " + n.ControllerRole, "RoleName: " + n.NodeRole} {
		if !strings.Contains(cfn, want) {
			t.Errorf("CloudFormation lacks %q", want)
		}
	}
}

func fromYAML(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}

func fromJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}
