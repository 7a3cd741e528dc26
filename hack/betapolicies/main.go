// Command betapolicies writes internal/iam/iampolicy/data/v1beta1-<release>.json:
// the v1beta1 controller policies a move from the v1alpha5 APIs attaches
// on its way to v1, with karpgen's placeholders for the names.
//
//   - v0.32.10: the policy the v1beta1 migration guide attaches beside the
//     v1alpha5 one (reference/karpenter/migration-v0.32.10/), whose
//     placeholders are envsubst's and whose node role and queue are the
//     getting-started guide's names;
//
//   - v0.37.8: the getting-started template's controller policy of the
//     last v1beta1 minor (reference/karpenter/v0.37.8/cloudformation.yaml),
//     whose placeholders are CloudFormation's.
//
//     go generate ./internal/iam/iampolicy
//
// TestBetaPoliciesAreUpstreams holds the rendered policies to the
// reference files.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

func main() {
	files, err := generate()
	gosrc.WriteAll("betapolicies", "internal/iam/iampolicy/data", files, err)
}

func generate() (map[string][]byte, error) {
	root, err := gosrc.Root()
	if err != nil {
		return nil, err
	}
	ref := filepath.Join(root, "reference", "karpenter")
	files := map[string][]byte{}

	// The migration guide's policy, filled in by envsubst there. The node
	// role and the queue are the getting-started guide's names: they
	// become the environment's.
	raw, err := os.ReadFile(filepath.Join(ref, "migration-v0.32.10", "v1beta1-controller-policy.json"))
	if err != nil {
		return nil, err
	}
	doc, err := placeholders(string(raw), strings.NewReplacer(
		"arn:${AWS_PARTITION}:iam::${AWS_ACCOUNT_ID}:role/KarpenterNodeRole-${CLUSTER_NAME}", "${NodeRoleARN}",
		"arn:${AWS_PARTITION}:sqs:${AWS_REGION}:${AWS_ACCOUNT_ID}:${CLUSTER_NAME}", "${QueueARN}",
		"${AWS_PARTITION}", "${Partition}", "${AWS_REGION}", "${Region}",
		"${AWS_ACCOUNT_ID}", "${Account}", "${CLUSTER_NAME}", "${Cluster}",
	))
	if err != nil {
		return nil, fmt.Errorf("migration-v0.32.10: %w", err)
	}
	files["v1beta1-v0.32.10.json"] = doc

	// The last v1beta1 minor's getting-started controller policy.
	cfn, err := os.ReadFile(filepath.Join(ref, "v0.37.8", "cloudformation.yaml"))
	if err != nil {
		return nil, err
	}
	var tpl struct {
		Resources map[string]struct {
			Properties struct {
				PolicyDocument yaml.Node `yaml:"PolicyDocument"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(cfn, &tpl); err != nil {
		return nil, fmt.Errorf("v0.37.8: %w", err)
	}
	pd := tpl.Resources["KarpenterControllerPolicy"].Properties.PolicyDocument
	if pd.Tag != "!Sub" {
		return nil, fmt.Errorf("v0.37.8: KarpenterControllerPolicy's document is not a !Sub string")
	}
	doc, err = placeholders(pd.Value, strings.NewReplacer(
		"${KarpenterNodeRole.Arn}", "${NodeRoleARN}", "${KarpenterInterruptionQueue.Arn}", "${QueueARN}",
		"${AWS::Partition}", "${Partition}", "${AWS::Region}", "${Region}",
		"${AWS::AccountId}", "${Account}", "${ClusterName}", "${Cluster}",
	))
	if err != nil {
		return nil, fmt.Errorf("v0.37.8: %w", err)
	}
	files["v1beta1-v0.37.8.json"] = doc
	return files, nil
}

// known are karpgen's placeholders; a document may hold no other.
var (
	known    = map[string]bool{"${NodeRoleARN}": true, "${QueueARN}": true, "${Partition}": true, "${Region}": true, "${Account}": true, "${Cluster}": true}
	variable = regexp.MustCompile(`\$\{[^}]*\}`)
)

// placeholders rewrites a policy's variables as karpgen's and returns
// the document as indented JSON.
func placeholders(text string, r *strings.Replacer) ([]byte, error) {
	text = r.Replace(text)
	for _, v := range variable.FindAllString(text, -1) {
		if !known[v] {
			return nil, fmt.Errorf("variable %s has no placeholder", v)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
