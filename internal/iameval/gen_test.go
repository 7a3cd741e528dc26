package iameval_test

import (
	"math/rand/v2"
	"slices"
)

// Case is one generated request with the policies that take part, in the
// documents' JSON form (for the evaluator and for an oracle alike).
type Case struct {
	Identity []map[string]any   `json:"identity"`
	Boundary map[string]any     `json:"boundary,omitempty"`
	SCPs     [][]map[string]any `json:"scps,omitempty"`
	RCPs     [][]map[string]any `json:"rcps,omitempty"`
	Request  CaseRequest        `json:"request"`
}

// CaseRequest is a generated request.
type CaseRequest struct {
	Action   string              `json:"action"`
	Resource string              `json:"resource"`
	Context  map[string][]string `json:"context"`
}

// The vocabulary of generated cases: real actions on resources they take,
// and condition keys of the kinds Karpenter's requests carry.
var (
	// Each request with the condition keys its action and resource
	// carry beyond the global ones (the simulator, like AWS, leaves out
	// a key the action does not have).
	genRequests = []struct {
		action, resource string
		keys             []string
	}{
		{"ec2:RunInstances", "arn:aws:ec2:us-east-1:111122223333:instance/i-0new", []string{"aws:RequestTag/team", "aws:TagKeys", "ec2:InstanceType"}},
		{"ec2:TerminateInstances", "arn:aws:ec2:us-east-1:111122223333:instance/i-0abc", []string{"aws:ResourceTag/team", "ec2:InstanceType"}},
		{"ec2:CreateTags", "arn:aws:ec2:us-east-1:111122223333:volume/vol-0abc", []string{"aws:RequestTag/team", "aws:TagKeys", "aws:ResourceTag/team", "ec2:VolumeSize"}},
		{"ec2:DescribeInstances", "*", nil},
		{"sqs:ReceiveMessage", "arn:aws:sqs:us-east-1:111122223333:queue-a", []string{"aws:ResourceTag/team"}},
		{"iam:PassRole", "arn:aws:iam::111122223333:role/Node-a", []string{"aws:ResourceTag/team"}},
		{"s3:GetObject", "arn:aws:s3:::bucket-a/a/key", nil},
	}
	globalKeys   = []string{"aws:RequestedRegion", "aws:PrincipalTag/team", "aws:SecureTransport", "aws:SourceIp", "aws:CurrentTime"}
	genActions   = []string{"*", "ec2:*", "ec2:RunInstances", "ec2:Run*", "ec2:?erminateInstances", "EC2:describe*", "sqs:*", "iam:PassRole", "s3:Get*", "sqs:SendMessage"}
	genResources = []string{"*", "arn:aws:ec2:*:*:instance/*", "arn:aws:ec2:us-east-1:111122223333:instance/i-0abc", "arn:aws:sqs:*:111122223333:queue-?",
		"arn:aws:iam::111122223333:role/Node-*", "arn:aws:s3:::bucket-a/${aws:PrincipalTag/team}/*", "arn:aws:ec2:eu-west-1:*:*",
		"arn:aws:iam::111122223333:role/${aws:PrincipalTag/team}"}
	genContext = map[string][][]string{
		"aws:RequestedRegion":   {{"us-east-1"}, {"eu-west-1"}},
		"aws:RequestTag/team":   {{"a"}, {"b"}},
		"aws:TagKeys":           {{"team"}, {"team", "env"}, {"env"}},
		"aws:ResourceTag/team":  {{"a"}, {"b"}, {"*"}, {"a?"}, {"$x"}},
		"aws:PrincipalTag/team": {{"a"}, {"b"}},
		"ec2:InstanceType":      {{"m5.large"}, {"p4d.24xlarge"}},
		"ec2:VolumeSize":        {{"100"}, {"20"}},
		"aws:SecureTransport":   {{"true"}, {"false"}},
		"aws:SourceIp":          {{"10.0.0.5"}, {"192.168.1.1"}},
		"aws:CurrentTime":       {{"2026-12-01T00:00:00Z"}},
	}
	genConditions = []func(r *rand.Rand) (op, key string, vals []any){
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "StringEquals", "StringNotEquals", "StringEqualsIfExists", "StringNotEqualsIfExists", "StringEqualsIgnoreCase"), "aws:RequestedRegion", vals(r, "us-east-1", "eu-west-1", "US-EAST-1")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "StringLike", "StringNotLike", "StringLikeIfExists"), "ec2:InstanceType", vals(r, "p*", "m5.*", "*.large", "m?.large")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "StringEquals", "StringNotEquals", "StringEqualsIfExists"), "aws:RequestTag/team", vals(r, "a", "b", "${aws:PrincipalTag/team}")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "ForAllValues:StringEquals", "ForAnyValue:StringEquals", "ForAllValues:StringLike", "ForAnyValue:StringNotEquals"), "aws:TagKeys", vals(r, "team", "env", "e*")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "StringEquals", "StringLike"), "aws:ResourceTag/team", vals(r, "a", "${aws:PrincipalTag/team}", "*")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "NumericLessThanEquals", "NumericGreaterThan", "NumericEquals", "NumericNotEquals", "NumericLessThanIfExists"), "ec2:VolumeSize", vals(r, "50", "100", "20")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "Bool", "BoolIfExists"), "aws:SecureTransport", []any{pick(r, "true", "false")}
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "IpAddress", "NotIpAddress", "IpAddressIfExists"), "aws:SourceIp", vals(r, "10.0.0.0/8", "192.168.1.1/32", "172.16.0.0/12")
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "DateLessThan", "DateGreaterThan", "DateGreaterThanEquals"), "aws:CurrentTime", vals(r, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
		},
		func(r *rand.Rand) (string, string, []any) {
			// IAM's literal characters: ${*} is an asterisk, not a wildcard.
			// (StringEquals reads them too, as AWS documents; the simulator
			// compares them as written, so TestLiteralCharacters holds that.)
			return pick(r, "StringLike", "StringNotLike", "StringLikeIfExists"), "aws:ResourceTag/team", vals(r, "${*}", "a${?}", "${$}x", "a*", "?")
		},
		func(r *rand.Rand) (string, string, []any) {
			// Keys AWS puts in every request, which a request model may leave out.
			return pick(r, "Bool", "BoolIfExists"), pick(r, "aws:ViaAWSService", "aws:PrincipalIsAWSService"), []any{pick(r, "true", "false")}
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "NumericLessThan", "NumericGreaterThan"), "aws:EpochTime", vals(r, "1767225600", "1798761600")
		},
		func(r *rand.Rand) (string, string, []any) {
			return "Null", pick(r, "aws:RequestTag/team", "aws:ResourceTag/team", "ec2:InstanceType"), []any{pick(r, "true", "false")}
		},
		func(r *rand.Rand) (string, string, []any) {
			return pick(r, "ArnLike", "ArnNotLike", "ArnEquals"), "aws:SourceArn", vals(r, "arn:aws:events:*:111122223333:rule/*", "arn:aws:events:us-east-1:111122223333:rule/a")
		},
	}
)

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func vals(r *rand.Rand, xs ...string) []any {
	n := 1 + r.IntN(2)
	var out []any
	for range n {
		out = append(out, pick(r, xs...))
	}
	return out
}

func genStatement(r *rand.Rand, effect string) map[string]any {
	st := map[string]any{"Effect": effect}
	if r.IntN(5) == 0 {
		st["NotAction"] = pick(r, genActions[1:]...)
	} else {
		st["Action"] = []any{pick(r, genActions...)}
	}
	switch r.IntN(6) {
	case 0:
		st["NotResource"] = pick(r, genResources[1:]...)
	default:
		st["Resource"] = pick(r, genResources...)
	}
	if n := r.IntN(3); n > 0 {
		cond := map[string]any{}
		for range n {
			op, key, vs := pick(r, genConditions...)(r)
			if cond[op] == nil {
				cond[op] = map[string]any{}
			}
			cond[op].(map[string]any)[key] = vs
		}
		st["Condition"] = cond
	}
	return st
}

func genPolicy(r *rand.Rand, allowBias int) map[string]any {
	n := 1 + r.IntN(3)
	var sts []any
	for range n {
		effect := "Allow"
		if r.IntN(allowBias) == 0 {
			effect = "Deny"
		}
		sts = append(sts, genStatement(r, effect))
	}
	return map[string]any{"Version": "2012-10-17", "Statement": sts}
}

// fullAccess is the FullAWSAccess policy AWS attaches by default.
var fullAccess = map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}}

// Generate makes n cases from a seed.
func Generate(seed uint64, n int) []Case {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []Case
	for range n {
		req := pick(r, genRequests...)
		c := Case{Request: CaseRequest{Action: req.action, Resource: req.resource, Context: map[string][]string{}}}
		for _, key := range append(slices.Clone(globalKeys), req.keys...) {
			if r.IntN(3) > 0 {
				c.Request.Context[key] = pick(r, genContext[key]...)
			}
		}
		for range 1 + r.IntN(2) {
			c.Identity = append(c.Identity, genPolicy(r, 3))
		}
		if r.IntN(3) == 0 {
			c.Boundary = genPolicy(r, 4)
		}
		if r.IntN(2) == 0 {
			for range 1 + r.IntN(2) {
				level := []map[string]any{fullAccess}
				if r.IntN(2) == 0 {
					level = append(level, genPolicy(r, 1)) // deny-lists, as SCPs are written
				}
				if r.IntN(6) == 0 {
					level = []map[string]any{genPolicy(r, 3)} // an allow-list level
				}
				c.SCPs = append(c.SCPs, level)
			}
		}
		if r.IntN(4) == 0 {
			rcp := genPolicy(r, 1)
			for _, st := range rcp["Statement"].([]any) {
				st := st.(map[string]any)
				st["Principal"] = "*"
				delete(st, "NotAction")
				st["Action"] = []any{pick(r, "sqs:*", "sqs:ReceiveMessage", "s3:Get*", "s3:GetObject")}
			}
			c.RCPs = [][]map[string]any{{rcp}}
		}
		out = append(out, c)
	}
	return out
}
