package iampolicy

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
)

//go:generate go run ../../../hack/betapolicies

//go:embed data/v1beta1-*.json
var betaData embed.FS

// BetaReleases are the releases whose v1beta1 controller policy a move
// from the v1alpha5 APIs attaches, in the order it attaches them: the
// migration guide's policy for 0.32 (beside the v1alpha5 one), then the
// last v1beta1 minor's (0.33 and later tag spot requests, which the
// first does not allow).
var BetaReleases = []string{"0.32.10", "0.37.8"}

// BetaPolicy is the v1beta1 controller policy of a release of
// BetaReleases, for the environment's names: every node role it may pass,
// and without the queue's statement when the environment has no queue.
// Karpenter 1.0 and later need none of it: the plan removes it once
// they run.
func BetaPolicy(release string, n model.Names) (ControllerPolicy, error) {
	data, err := betaData.ReadFile("data/v1beta1-v" + release + ".json")
	if err != nil {
		return ControllerPolicy{}, fmt.Errorf("no v1beta1 controller policy of Karpenter %s", release)
	}
	text := strings.NewReplacer(
		"${Partition}", n.Partition, "${Region}", n.Region, "${Account}", n.Account,
		"${Cluster}", n.Cluster, "${NodeRoleARN}", n.NodeRoleARN, "${QueueARN}", n.QueueARN,
	).Replace(string(data))
	var doc obj
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return ControllerPolicy{}, fmt.Errorf("the v1beta1 controller policy of Karpenter %s: %w", release, err)
	}
	var kept []any
	for _, s := range doc["Statement"].([]any) {
		st := s.(obj)
		switch st["Sid"] {
		case "AllowInterruptionQueueActions":
			if n.QueueARN == "" {
				continue
			}
		case "AllowPassingInstanceRole":
			st["Resource"] = nodeRoleResource(n)
		}
		kept = append(kept, st)
	}
	doc["Statement"] = kept
	part := "V1Beta1" + strings.ReplaceAll(release[:strings.LastIndex(release, ".")], ".", "")
	return ControllerPolicy{
		Part: part, File: model.ControllerPolicyFile("v1beta1-" + release), Name: n.ControllerPolicyName(part),
		LogicalID: "KarpenterController" + part + "Policy", Document: doc,
	}, nil
}
