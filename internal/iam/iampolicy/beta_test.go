package iampolicy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/oracle"
)

// betaNames are the names of the getting-started guide, which upstream's
// v1beta1 policies hard-code: its node role and a queue named after the
// cluster.
func betaNames(partition, region string) model.Names {
	n := model.Names{Partition: partition, Region: region, Account: "111122223333", Cluster: "ws-beta"}
	n.NodeRole = "KarpenterNodeRole-" + n.Cluster
	n.NodeRoleARN = "arn:" + partition + ":iam::" + n.Account + ":role/" + n.NodeRole
	n.Queue = n.Cluster
	n.QueueARN = "arn:" + partition + ":sqs:" + region + ":" + n.Account + ":" + n.Queue
	return n
}

// TestBetaPoliciesAreUpstreams: each v1beta1 policy karpgen attaches is,
// for the getting-started names, exactly upstream's: the migration
// guide's 0.32 policy filled in as its envsubst would, and 0.37's
// getting-started controller policy filled in as CloudFormation would.
func TestBetaPoliciesAreUpstreams(t *testing.T) {
	dir := oracle.Dir(t)
	for _, region := range []string{"ap-northeast-2", "cn-north-1"} {
		partition := map[bool]string{true: "aws-cn", false: "aws"}[strings.HasPrefix(region, "cn-")]
		n := betaNames(partition, region)

		raw, err := os.ReadFile(filepath.Join(dir, "migration-v0.32.10", "v1beta1-controller-policy.json"))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.NewReplacer("${AWS_PARTITION}", partition, "${AWS_REGION}", region, "${AWS_ACCOUNT_ID}", n.Account, "${CLUSTER_NAME}", n.Cluster).Replace(string(raw))
		var guide map[string]any
		if err := json.Unmarshal([]byte(text), &guide); err != nil {
			t.Fatal(err)
		}
		tpl, err := oracle.LoadTemplate(dir, "v0.37.8", oracle.Vars{
			Partition: partition, Region: region, Account: n.Account, Cluster: n.Cluster, NodeRoleARN: n.NodeRoleARN, QueueARN: n.QueueARN,
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"0.32.10": guide, "0.37.8": tpl.Policies["KarpenterControllerPolicy-"+n.Cluster].Document}
		for _, release := range iampolicy.BetaReleases {
			cp, err := iampolicy.BetaPolicy(release, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := oracle.Normalize(cp.Document); !reflect.DeepEqual(got, oracle.Normalize(want[release])) {
				t.Errorf("%s in %s: the policy is not upstream's:\n%v\nwant\n%v", release, region, got, want[release])
			}
		}
	}
}

// TestBetaPolicyNames: the policy passes every node role of the
// environment, drops the queue's statement without a queue, and is named
// and filed per release.
func TestBetaPolicyNames(t *testing.T) {
	n := betaNames("aws", "ap-northeast-2")
	n.QueueARN = ""
	n.ExtraNodeRoles = []model.NodeRole{{Name: "gpu", ARN: "arn:aws:iam::111122223333:role/gpu"}}
	cp, err := iampolicy.BetaPolicy("0.32.10", n)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Name != "KarpenterControllerV1Beta1032Policy-ws-beta" || cp.File != "controller-policy-v1beta1-0.32.10.json" {
		t.Errorf("named %s in %s", cp.Name, cp.File)
	}
	var pass any
	for _, s := range cp.Document["Statement"].([]any) {
		st := s.(map[string]any)
		switch st["Sid"] {
		case "AllowInterruptionQueueActions":
			t.Error("the queue's statement is kept without a queue")
		case "AllowPassingInstanceRole":
			pass = st["Resource"]
		}
	}
	want := []any{"arn:aws:iam::111122223333:role/KarpenterNodeRole-ws-beta", "arn:aws:iam::111122223333:role/gpu"}
	if !reflect.DeepEqual(pass, want) {
		t.Errorf("PassRole on %v, want %v", pass, want)
	}
	if _, err := iampolicy.BetaPolicy("0.33.0", n); err == nil || err.Error() != "no v1beta1 controller policy of Karpenter 0.33.0" {
		t.Errorf("an unknown release: %v", err)
	}
}
