package cfnpreview

import (
	"slices"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/model"
)

func mustParse(t *testing.T, body string) *Template {
	t.Helper()
	tm, err := Parse("t.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestComputeByCloudFormationsRules: one resource of each fate.
func TestComputeByCloudFormationsRules(t *testing.T) {
	old := mustParse(t, `
Parameters:
  ClusterName: {Type: String}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub "${ClusterName}", MessageRetentionPeriod: 300}
  Fifo:
    Type: AWS::SQS::Queue
    Properties: {QueueName: jobs.fifo, FifoQueue: true}
  Kept:
    Type: AWS::IAM::Role
    Properties:
      RoleName: !Sub "Node-${ClusterName}"
      AssumeRolePolicyDocument: {Statement: [{Effect: Allow, Principal: {Service: !Sub "ec2.${AWS::URLSuffix}"}, Action: ["sts:AssumeRole"]}]}
  Gone:
    Type: AWS::IAM::ManagedPolicy
    Properties: {ManagedPolicyName: Old, PolicyDocument: {Statement: []}}
  Saved:
    Type: AWS::IAM::ManagedPolicy
    DeletionPolicy: Retain
    Properties: {ManagedPolicyName: Saved, PolicyDocument: {Statement: []}}
  Kind:
    Type: AWS::SQS::QueuePolicy
    Properties: {Queues: [!Ref Queue], PolicyDocument: {Statement: []}}
  Rule:
    Type: AWS::Events::Rule
    Properties:
      EventPattern: {source: [aws.ec2]}
      Targets: [{Id: T, Arn: !GetAtt Queue.Arn}]
`)
	next := mustParse(t, `{"Resources": {
  "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "c1", "MessageRetentionPeriod": 600}},
  "Fifo": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "jobs.fifo"}},
  "Kept": {"Type": "AWS::IAM::Role", "Properties": {"RoleName": "Node-c1", "Path": "/",
    "AssumeRolePolicyDocument": {"Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}}},
  "Kind": {"Type": "AWS::SNS::TopicPolicy", "Properties": {}},
  "Rule": {"Type": "AWS::Events::Rule", "Properties": {"Name": "Karpenter-c1", "EventPattern": {"source": ["aws.ec2"]},
    "Targets": [{"Id": "T", "Arn": "arn:aws:sqs:r1:111:c1"}]}},
  "New": {"Type": "AWS::IAM::Role", "Properties": {"RoleName": "Admin"}}
}}`)
	live := []Live{
		{"Queue", "https://sqs.r1.amazonaws.com/111/c1", "AWS::SQS::Queue"},
		{"Fifo", "https://sqs.r1.amazonaws.com/111/jobs.fifo", "AWS::SQS::Queue"},
		{"Kept", "Node-c1", "AWS::IAM::Role"},
		{"Gone", "arn:aws:iam::111:policy/Old", "AWS::IAM::ManagedPolicy"},
		{"Saved", "arn:aws:iam::111:policy/Saved", "AWS::IAM::ManagedPolicy"},
		{"Kind", "c1-policy", "AWS::SQS::QueuePolicy"},
		{"Rule", "stack-Rule-ABC", "AWS::Events::Rule"},
	}
	env := Env{Names: model.Names{Partition: "aws", Region: "r1", Account: "111", URLSuffix: "amazonaws.com"}, StackName: "stack", Parameters: map[string]string{"ClusterName": "c1"}}
	taken := Taken{"AWS::IAM::Role": {"admin": "role Admin of the account"}}
	var got []string
	for _, c := range Compute(old, live, next, env, taken) {
		got = append(got, string(c.Action)+" "+c.Logical+" "+c.Name+": "+c.Why)
	}
	want := []string{
		"fails Fifo jobs.fifo: FifoQueue changes, which replaces it, and CloudFormation cannot replace a custom-named resource under the same name: the update rolls back",
		"delete Gone Old: the template no longer names it",
		"keep Kept Node-c1: ",
		"fails Kind c1-policy: its type changes from AWS::SQS::QueuePolicy, which CloudFormation refuses",
		"fails New Admin: role Admin of the account holds the name Admin already: \"already exists\", and the update rolls back",
		"modify Queue c1: MessageRetentionPeriod changes, in place",
		"replace Rule stack-Rule-ABC: Name changes, which replaces it: a new one is created, then stack-Rule-ABC is deleted (new name Karpenter-c1)",
		"retain Saved Saved: the template no longer names it; DeletionPolicy Retain keeps it in the account",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cs := Compute(old, live, next, env, taken)
	if c := Counts(cs); c != "3 failing, 1 deleted, 1 replaced, 1 retained, 1 modified, 1 kept" {
		t.Errorf("counts %q", c)
	}
	var harmful []string
	for _, c := range Harmful(cs) {
		harmful = append(harmful, c.Logical)
	}
	// The rule's replacement is not harm: the named rule exists before
	// the old one goes.
	if !slices.Equal(harmful, []string{"Fifo", "Gone", "Kind", "New"}) {
		t.Errorf("harmful %v", harmful)
	}
}

// TestParseRefuses: what is not a template is an error naming it.
func TestParseRefuses(t *testing.T) {
	for body, want := range map[string]string{
		"":                                 "t.yaml: an empty template",
		"Resources: {}":                    "t.yaml: a template without resources",
		"Resources: {A: {Properties: {}}}": "t.yaml: resource A has no Type",
		"a: &x [1]\nResources: {A: *x}":    "t.yaml: line 2: an alias, which CloudFormation does not read",
		"Resources: [":                     "t.yaml: not a template: yaml: line 1: did not find expected node content",
	} {
		_, err := Parse("t.yaml", []byte(body))
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
	}
}

// TestEveryPermissionIsHarm: deleting an inline policy on the node role
// harms as deleting a managed one does, and a type karpgen does not
// know is never called harmless.
func TestEveryPermissionIsHarm(t *testing.T) {
	old := mustParse(t, `
Resources:
  NodeRole:
    Type: AWS::IAM::Role
    Properties: {RoleName: Node-c1, AssumeRolePolicyDocument: {Statement: []}}
  NodeInline:
    Type: AWS::IAM::Policy
    Properties: {PolicyName: ecr-pull, Roles: [!Ref NodeRole], PolicyDocument: {Statement: [{Effect: Allow, Action: "ecr:GetAuthorizationToken", Resource: "*"}]}}
  NodeRolePolicy:
    Type: AWS::IAM::RolePolicy
    Properties: {PolicyName: ssm, RoleName: !Ref NodeRole, PolicyDocument: {Statement: []}}
  Key:
    Type: AWS::KMS::Key
    Properties: {KeyPolicy: {Statement: []}}
  Odd:
    Type: AWS::Custom::Thing
    Properties: {}
`)
	next := mustParse(t, `{"Resources": {"NodeRole": {"Type": "AWS::IAM::Role", "Properties": {"RoleName": "Node-c1", "AssumeRolePolicyDocument": {"Statement": []}}}}}`)
	env := Env{Names: model.Names{Partition: "aws", Region: "r1", Account: "111", URLSuffix: "amazonaws.com"}, StackName: "stack"}
	var got []string
	for _, c := range Harmful(Compute(old, nil, next, env, nil)) {
		got = append(got, c.Logical+": "+c.Harm)
	}
	want := []string{
		"Key: volumes and messages encrypted with it cannot be read without it",
		"NodeInline: the roles it is embedded in lose what it allows",
		"NodeRolePolicy: the role it is embedded in loses what it allows",
		"Odd: karpgen does not know what uses a resource of type AWS::Custom::Thing: check that nothing does before the update deletes or replaces it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("harm:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUpdatable: a stack CloudFormation will not update is said so.
func TestUpdatable(t *testing.T) {
	for status, want := range map[string]bool{
		"UPDATE_COMPLETE": true, "CREATE_COMPLETE": true, "UPDATE_ROLLBACK_COMPLETE": true, "IMPORT_COMPLETE": true,
		"UPDATE_ROLLBACK_FAILED": false, "ROLLBACK_COMPLETE": false, "UPDATE_IN_PROGRESS": false,
		"UPDATE_COMPLETE_CLEANUP_IN_PROGRESS": false, "DELETE_FAILED": false, "CREATE_IN_PROGRESS": false,
	} {
		if ok, why := Updatable(status); ok != want || ok != (why == "") {
			t.Errorf("%s: %v %q, want %v", status, ok, why, want)
		}
	}
}
