// Package doctor compares what an environment's bundle says should exist
// with what a captured account and cluster hold. Capture is a POSIX shell
// script of read-only aws, kubectl and helm commands, one JSON file per
// command; the check reads that folder offline, so the same folder always
// gives the same answer. A file that was not captured skips its checks.
package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// command is one read-only command of the capture and the file its JSON
// output goes to.
type command struct {
	file string
	argv string
}

// commands are the capture's commands for an environment, in order.
func commands(e *model.Env) []command {
	n := e.Names
	// Every name is one shell word, quoted where the shell would read it
	// otherwise.
	q := escape.Shell
	region := "--region " + q(n.Region)
	out := []command{
		{live.FileEKSCluster, fmt.Sprintf("aws eks describe-cluster %s --name %s --output json", region, q(n.Cluster))},
		{"ec2-subnets.json", fmt.Sprintf(`aws ec2 describe-subnets %s --filters "Name=vpc-id,Values=$VPC" --output json`, region)},
		{"ec2-security-groups.json", fmt.Sprintf(`aws ec2 describe-security-groups %s --filters "Name=vpc-id,Values=$VPC" --output json`, region)},
	}
	for _, r := range n.NodeRoles() {
		f := nodeRoleFilesOf(n, r.Name)
		out = append(out,
			command{q(f.role), fmt.Sprintf("aws iam get-role --role-name %s --output json", q(r.Name))},
			command{q(f.policies), fmt.Sprintf("aws iam list-attached-role-policies --role-name %s --output json", q(r.Name))})
		if r.Exists {
			// A role the team made: its own policies, which doctor
			// evaluates the node's requests against.
			out = append(out, command{q(f.details), fmt.Sprintf(
				`aws iam get-account-authorization-details --filter Role LocalManagedPolicy --query %s --output json`,
				q(fmt.Sprintf("{Roles: RoleDetailList[?RoleName=='%s'], Policies: Policies}", r.Name)))})
		}
	}
	out = append(out,
		command{"iam-controller-role.json", fmt.Sprintf("aws iam get-role --role-name %s --output json", q(n.ControllerRole))},
		command{"iam-controller-role-policies.json", fmt.Sprintf("aws iam list-attached-role-policies --role-name %s --output json", q(n.ControllerRole))},
	)
	if n.ControllerRoleExists {
		// A role the team made: its own inline and attached customer
		// managed policies, documents and all, which doctor evaluates the
		// controller's requests against. Role names hold no quote.
		out = append(out, command{"iam-controller-role-details.json", fmt.Sprintf(
			`aws iam get-account-authorization-details --filter Role LocalManagedPolicy --query %s --output json`,
			q(fmt.Sprintf("{Roles: RoleDetailList[?RoleName=='%s'], Policies: Policies}", n.ControllerRole)))})
	}
	for _, cp := range iampolicy.ControllerPolicies(e.Facts, n, e.IAMGates) {
		arn := n.PolicyARN(cp.Name)
		out = append(out, command{q("iam-policy-" + cp.Name + ".json"), fmt.Sprintf(
			`aws iam get-policy-version --policy-arn %s --version-id "$(aws iam get-policy --policy-arn %s --query Policy.DefaultVersionId --output text)" --output json`, q(arn), q(arn))})
	}
	out = append(out,
		command{"iam-spot-service-linked-role.json", "aws iam get-role --role-name AWSServiceRoleForEC2Spot --output json"},
		command{"iam-oidc-providers.json", "aws iam list-open-id-connect-providers --output json"},
		command{"eks-access-entries.json", fmt.Sprintf("aws eks list-access-entries %s --cluster-name %s --output json", region, q(n.Cluster))},
	)
	for _, ip := range instanceProfiles(e) {
		out = append(out, command{q("iam-instance-profile-" + ip + ".json"), fmt.Sprintf("aws iam get-instance-profile --instance-profile-name %s --output json", q(ip))})
	}
	for _, r := range n.NodeRoles() {
		out = append(out, command{q(nodeRoleFilesOf(n, r.Name).entry), fmt.Sprintf("aws eks describe-access-entry %s --cluster-name %s --principal-arn %s --output json", region, q(n.Cluster), q(r.ARN))})
	}
	out = append(out,
		command{live.FilePodIdentityAssocsList, fmt.Sprintf("aws eks list-pod-identity-associations %s --cluster-name %s --output json", region, q(n.Cluster))},
		command{"eks-addons.json", fmt.Sprintf("aws eks list-addons %s --cluster-name %s --output json", region, q(n.Cluster))},
		// The managed node groups: those the profile keeps, and the ones a
		// migration from Cluster Autoscaler empties.
		command{"eks-nodegroups.json", fmt.Sprintf("aws eks list-nodegroups %s --cluster-name %s --output json", region, q(n.Cluster))},
	)
	for _, g := range slices.Sorted(maps.Keys(e.Profile.NodeGroups)) {
		out = append(out, command{q(live.PerItem(live.PrefixNodeGroup, g)), fmt.Sprintf("aws eks describe-nodegroup %s --cluster-name %s --nodegroup-name %s --output json", region, q(n.Cluster), q(g))})
	}
	if n.Queue != "" {
		out = append(out, command{"sqs-queue.json", fmt.Sprintf(
			`aws sqs get-queue-attributes %s --queue-url "$(aws sqs get-queue-url %s --queue-name %s --query QueueUrl --output text)" --attribute-names All --output json`, region, region, q(n.Queue))})
		out = append(out, command{"events-rules.json", fmt.Sprintf("aws events list-rules %s --output json", region)})
		// The rules that send to the queue, whatever they are named (an
		// adopted queue's rules have upstream's stack's names).
		out = append(out, command{"events-rules-by-target.json", fmt.Sprintf("aws events list-rule-names-by-target %s --target-arn %s --output json", region, q(n.QueueARN))})
	}
	out = append(out,
		// The cluster kubectl talks to: doctor holds it to the EKS
		// cluster's endpoint before it reads anything kubectl captured.
		command{"k8s-context.json", "kubectl config view --minify -o json"},
		// Every CRD: naming some fails the whole command when one is
		// missing; doctor picks the ones the profile's minor installs.
		command{"k8s-crds.json", "kubectl get crd -o json"},
		command{"k8s-webhooks.json", "kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o json"},
		command{live.FileKarpenterDeployment, fmt.Sprintf("kubectl get deployment karpenter --namespace %s -o json", q(n.Namespace))},
		// The controller's service account: eksctl's iamServiceAccounts
		// annotate it with their IRSA role, which import adopts.
		command{live.FileKarpenterSA, fmt.Sprintf("kubectl get serviceaccount %s --namespace %s -o json", q(n.ServiceAccount), q(n.Namespace))},
		command{"k8s-ec2nodeclasses.json", "kubectl get ec2nodeclasses.karpenter.k8s.aws -o json"},
		command{"k8s-nodepools.json", "kubectl get nodepools.karpenter.sh -o json"},
		// Karpenter's nodes, by pool, class and image: promote and
		// rotate say how many nodes a change replaces.
		command{live.FileNodeClaims, "kubectl get nodeclaims.karpenter.sh -o json"},
		// Every PodDisruptionBudget: one that allows no disruption holds
		// drains and Karpenter's disruption of the nodes its pods run on.
		command{live.FilePDBs, "kubectl get poddisruptionbudgets --all-namespaces -o json"},
		// Every node and every pod, with the time they were read at:
		// `karpgen simulate --disruption` decides on them as Karpenter's
		// disruption controller would have then.
		command{live.FileNodes, "kubectl get nodes -o json"},
		command{live.FilePods, "kubectl get pods --all-namespaces -o json"},
		// The workloads: a Cluster Autoscaler among them scales the node
		// groups beside Karpenter.
		command{live.FileWorkloads, "kubectl get deployments,statefulsets,daemonsets,jobs,cronjobs --all-namespaces -o json"},
		// The volumes and their classes: `karpgen simulate --workloads`
		// of the capture's folder places the workloads' pods in the zones
		// their volumes are in, as Karpenter does.
		command{"k8s-volumes.json", "kubectl get persistentvolumes,persistentvolumeclaims,storageclasses --all-namespaces -o json"},
		// The VPC CNI's service account: with a role of its own (IRSA),
		// the node roles need no CNI policy.
		command{"k8s-aws-node-serviceaccount.json", "kubectl get serviceaccount aws-node --namespace kube-system -o json"},
	)
	if app := e.Application; app != nil {
		// Argo CD renders the charts with helm template: there is no
		// release to read. Its Application says what it deploys and how
		// that went; ARGOCD_CONTEXT names the kubeconfig context of the
		// cluster Argo CD runs in, when that is another one.
		out = append(out, command{live.FileArgoCDApplication, fmt.Sprintf(`kubectl ${ARGOCD_CONTEXT:+--context "$ARGOCD_CONTEXT"} get applications.argoproj.io %s --namespace %s -o json`, q(app.Name), q(app.Namespace))})
	} else {
		out = append(out, command{"helm-values.json", fmt.Sprintf("helm get values karpenter --namespace %s -o json", q(n.Namespace))})
	}
	if e.Profile.Karpenter.NodeAccess == "awsAuth" {
		out = append(out, command{"k8s-aws-auth.json", "kubectl get configmap aws-auth --namespace kube-system -o json"})
	}
	// For the plans (upgrade, migrate, render --state): the stacks the
	// profile names, what each holds and the template it was deployed
	// with, and every Helm release (Argo CD takes over from one).
	for _, stack := range stacksOf(n) {
		describe, resources, template := StackFiles(stack)
		out = append(out,
			command{q(describe), fmt.Sprintf("aws cloudformation describe-stacks %s --stack-name %s --output json", region, q(stack))},
			command{q(resources), fmt.Sprintf("aws cloudformation describe-stack-resources %s --stack-name %s --output json", region, q(stack))},
			command{q(template), fmt.Sprintf("aws cloudformation get-template %s --stack-name %s --template-stage Original --output json", region, q(stack))})
	}
	out = append(out, command{live.FileHelmReleases, "helm list --all-namespaces --all -o json"})
	return append(out, priceCommands(n.Region)...)
}

// priceCommands read the prices Karpenter decides with, which simulate
// and diff --workloads price nodes with: the region's Linux on-demand
// prices from the Price List API, asked where and as Karpenter's pricing
// provider asks (shared tenancy, then bare metal), and the spot prices
// in force now. GovCloud has no Price List API.
func priceCommands(region string) []command {
	q := escape.Shell
	var out []command
	if at, ok := facts.PricingRegion(region); ok {
		for _, c := range []struct{ file, tenancy, family string }{
			{live.FileOnDemandPrices, "Shared", "Compute Instance"},
			{live.FileOnDemandMetalPrices, "Dedicated", "Compute Instance (bare metal)"},
		} {
			filters := []map[string]string{}
			for _, f := range [][2]string{
				{"regionCode", region}, {"serviceCode", "AmazonEC2"}, {"preInstalledSw", "NA"}, {"operatingSystem", "Linux"},
				{"capacitystatus", "Used"}, {"marketoption", "OnDemand"}, {"tenancy", c.tenancy}, {"productFamily", c.family},
			} {
				filters = append(filters, map[string]string{"Type": "TERM_MATCH", "Field": f[0], "Value": f[1]})
			}
			js, _ := json.Marshal(filters)
			out = append(out, command{c.file, fmt.Sprintf("aws pricing get-products --region %s --service-code AmazonEC2 --filters %s --output json", q(at), q(string(js)))})
		}
	}
	return append(out, command{live.FileSpotPrices, fmt.Sprintf(
		`aws ec2 describe-spot-price-history --region %s --product-descriptions Linux/UNIX "Linux/UNIX (Amazon VPC)" --start-time "$now" --output json`, q(region))})
}

// Script is the capture script of an environment: POSIX sh, read-only
// commands only, each writing its JSON (or an {"error": ...} object) into
// the folder given as its first argument.
func Script(e *model.Env) string {
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/sh
# Capture what karpgen doctor checks for environment %s (cluster %s in %s).
# Every command only reads. Run it with credentials that may read EKS, EC2,
# IAM, SQS, EventBridge and the Price List, and a kubeconfig for the cluster:
#   sh capture.sh STATE_DIR && karpgen doctor %s --state STATE_DIR
# Generated by karpgen doctor --capture-script.
set -u
dir=${1:?usage: sh capture.sh STATE_DIR}
mkdir -p "$dir"

# run FILE COMMAND: write the command's JSON output to FILE, or an error
# object with the code the tool reported.
run() {
	file=$1
	shift
	if out=$("$@" 2>"$dir/.stderr"); then
		printf '%%s\n' "$out" >"$dir/$file"
	else
		# Bytes, whatever the locale: a code is letters and dots only.
		code=$(LC_ALL=C sed -n -e 's/.*An error occurred (\([A-Za-z.]*\)).*/\1/p' -e 's/.*Error from server (\([A-Za-z]*\)).*/\1/p' "$dir/.stderr" | head -n 1 | LC_ALL=C tr -cd 'A-Za-z.')
		# Printable ASCII only, no quote or backslash: valid JSON for any
		# bytes the command printed.
		message=$(LC_ALL=C tr -cd ' !#-[]-~' <"$dir/.stderr" | cut -c 1-500)
		printf '{"error": {"code": "%%s", "message": "%%s"}}\n' "${code:-CommandFailed}" "$message" >"$dir/$file"
		# "Does not exist" is an answer (no such stack, role, queue or
		# object), which doctor and the plans read; anything else is a
		# command that could not look.
		case $code in
		NoSuchEntity | NotFound | ResourceNotFoundException | AWS.SimpleQueueService.NonExistentQueue | QueueDoesNotExist) absent=1 ;;
		ValidationError) case $message in *"does not exist"*) absent=1 ;; *) absent=0 ;; esac ;;
		*) absent=0 ;;
		esac
		if [ "$absent" = 1 ]; then
			echo "capture: $file: $code (does not exist)" >&2
		else
			failed=$((failed + 1))
			echo "capture: $file: ${code:-CommandFailed}" >&2
		fi
	fi
	rm -f "$dir/.stderr"
}
failed=0
# The spot prices are those in force now, and the nodes and pods are
# read now: simulate --disruption decides as Karpenter would have then.
now=$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)
printf '{"time": "%%s"}\n' "$now" >"$dir/%s"

`, e.Name, escape.Terminal(e.Names.Cluster), escape.Terminal(e.Names.Region), e.Name, live.FileCaptureTime)
	for _, c := range commands(e) {
		if c.file == live.FileSubnets {
			fmt.Fprintf(&b, "VPC=$(aws eks describe-cluster --region %s --name %s --query cluster.resourcesVpcConfig.vpcId --output text)\n", escape.Shell(e.Names.Region), escape.Shell(e.Names.Cluster))
		}
		fmt.Fprintf(&b, "run %s %s\n", c.file, c.argv)
	}
	// Every managed node group, whatever the profile names: migrate tags
	// the subnets of those it replaces and keeps the others' sizes. A
	// name EKS would refuse is skipped, never made a path.
	fmt.Fprintf(&b, `for g in $(aws eks list-nodegroups --region %[1]s --cluster-name %[2]s --query 'nodegroups[]' --output text 2>/dev/null); do
	case $g in *[!A-Za-z0-9_-]*) continue ;; esac
	run "%[3]s$g.json" aws eks describe-nodegroup --region %[1]s --cluster-name %[2]s --nodegroup-name "$g" --output json
	# The version of its launch template the group uses: the security
	# groups its nodes carry (without one, the cluster security group).
	lt=$(aws eks describe-nodegroup --region %[1]s --cluster-name %[2]s --nodegroup-name "$g" --query 'nodegroup.launchTemplate.id' --output text 2>/dev/null)
	ltv=$(aws eks describe-nodegroup --region %[1]s --cluster-name %[2]s --nodegroup-name "$g" --query 'nodegroup.launchTemplate.version' --output text 2>/dev/null)
	case $lt in lt-[0-9a-f]*) ;; *) continue ;; esac
	case $lt$ltv in *[!A-Za-z0-9_-]*) continue ;; esac
	run "%[4]s$g.json" aws ec2 describe-launch-template-versions --region %[1]s --launch-template-id "$lt" --versions "$ltv" --output json
done
# Every Pod Identity association with the role it binds, which the list
# does not name. An ID EKS would not give is skipped.
for a in $(aws eks list-pod-identity-associations --region %[1]s --cluster-name %[2]s --query 'associations[].associationId' --output text 2>/dev/null); do
	case $a in a-[a-z0-9]*) ;; *) continue ;; esac
	case $a in *[!A-Za-z0-9-]*) continue ;; esac
	run "%[5]s$a.json" aws eks describe-pod-identity-association --region %[1]s --cluster-name %[2]s --association-id "$a" --output json
done
`, escape.Shell(e.Names.Region), escape.Shell(e.Names.Cluster), live.PrefixNodeGroup, live.PrefixLaunchTemplate, live.PrefixAssociation)
	b.WriteString(`if [ "$failed" -gt 0 ]; then
	echo "capture: $failed command(s) failed (their files hold the error); check the credentials and the kubeconfig, then run it again" >&2
	exit 1
fi
echo "captured into $dir"
`)
	return b.String()
}

// nodeRoleFiles are the capture's files of one node role.
type nodeRoleFiles struct{ role, policies, entry, details string }

// nodeRoleFilesOf names a node role's files: the environment's own under
// the names captures have always had, each of karpenter.nodeRoles under
// "extra" names that end in the role's. No kind's prefix is the start of
// another's (iam-extra-node-role-, iam-extra-node-policies-,
// eks-access-entry-extra-node-), so no two roles share a file: role
// "policies-x" and role "x" once did. Names that differ only in case,
// which a case-insensitive file system would merge, are refused by vet
// (name/iam), as IAM itself merges them.
func nodeRoleFilesOf(n model.Names, role string) nodeRoleFiles {
	if role == n.NodeRole {
		return nodeRoleFiles{"iam-node-role.json", "iam-node-role-policies.json", "eks-access-entry-node.json", "iam-node-role-details.json"}
	}
	return nodeRoleFiles{"iam-extra-node-role-" + role + ".json", "iam-extra-node-policies-" + role + ".json", "eks-access-entry-extra-node-" + role + ".json",
		"iam-extra-node-details-" + role + ".json"}
}

// instanceProfiles are the instance profiles the node classes launch
// with, each once, by name.
func instanceProfiles(e *model.Env) []string {
	var out []string
	for _, nc := range e.Profile.NodeClasses {
		if nc.InstanceProfile != "" && !slices.Contains(out, nc.InstanceProfile) {
			out = append(out, nc.InstanceProfile)
		}
	}
	slices.Sort(out)
	return out
}
