package iameval

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestParseRefusesWhatItCannotEvaluate: constructs the evaluator does not
// implement are errors when a policy is read, never a silent allow or deny.
func TestParseRefusesWhatItCannotEvaluate(t *testing.T) {
	for doc, want := range map[string]string{
		`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Principal":{"AWS":"arn:aws:iam::1:root"}}}`:              `Principal other than "*"`,
		`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"BinaryEquals":{"k":"QUJD"}}}]}`:            `condition operator "BinaryEquals" is not evaluated`,
		`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"ForSomeValues:StringEquals":{"k":"a"}}}]}`: `"ForSomeValues" is not a set qualifier`,
		`{"Statement":[{"Effect":"Permit","Action":"*","Resource":"*"}]}`:                                                     `the Effect "Permit"`,
		`{"Statement":[{"Effect":"Allow","Action":"*","NotAction":"s3:*","Resource":"*"}]}`:                                   `Action or NotAction, not both`,
		`{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"Null":{"k":["true"]}},"Extra":1}]}`:        `element "Extra" is not evaluated`,
		`{"Version":"2012-10-18","Statement":[]}`:                                                                             `the Version "2012-10-18"`,
	} {
		if _, err := Parse("p.json", []byte(doc), false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
	if _, err := Parse("rcp.json", []byte(`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"*","Resource":"*"}]}`), true); err == nil {
		t.Error(`an RCP with Action "*" parsed`)
	}
}

// TestEvaluateNamesTheDecidingStatements: a deny names the statement that
// denies; an implicit deny says which kind of policy allowed nothing.
func TestEvaluateNamesTheDecidingStatements(t *testing.T) {
	mustParse := func(name, doc string) *Policy {
		p, err := Parse(name, []byte(doc), false)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	identity := mustParse("controller", `{"Statement":[{"Sid":"Launch","Effect":"Allow","Action":"ec2:RunInstances","Resource":"*"}]}`)
	regions := mustParse("deny-regions.json", `{"Statement":[{"Sid":"DenyOtherRegions","Effect":"Deny","NotAction":"iam:*","Resource":"*",
		"Condition":{"StringNotEquals":{"aws:RequestedRegion":["eu-west-1"]}}}]}`)
	full := mustParse("FullAWSAccess", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	boundary := mustParse("boundary", `{"Statement":[{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}]}`)
	req := Request{Action: "ec2:RunInstances", Resource: "arn:aws:ec2:us-east-1:1:instance/i-1", Context: map[string][]string{"aws:RequestedRegion": {"us-east-1"}}}

	res, err := Evaluate(Policies{Identity: []*Policy{identity}, SCPs: []Level{{Name: "root", Policies: []*Policy{full, regions}}}}, req)
	if err != nil || res.Decision != ExplicitlyDenied || len(res.By) != 1 || res.By[0].String() != `deny-regions.json statement "DenyOtherRegions"` {
		t.Errorf("region deny: %+v %v", res, err)
	}
	req.Context["aws:RequestedRegion"] = []string{"eu-west-1"}
	res, _ = Evaluate(Policies{Identity: []*Policy{identity}, SCPs: []Level{{Name: "root", Policies: []*Policy{full, regions}}}}, req)
	if res.Decision != Allowed || res.By[0].String() != `controller statement "Launch"` {
		t.Errorf("in region: %+v", res)
	}
	res, _ = Evaluate(Policies{Identity: []*Policy{identity}, Boundary: boundary}, req)
	if res.Decision != ImplicitlyDenied || res.Missing != "boundary" {
		t.Errorf("boundary: %+v", res)
	}
	res, _ = Evaluate(Policies{Identity: []*Policy{identity}, SCPs: []Level{{Name: "workloads", Policies: []*Policy{boundary}}}}, req)
	if res.Decision != ImplicitlyDenied || res.Missing != "scp:workloads" {
		t.Errorf("scp level: %+v", res)
	}
}

// TestPositions: statements and syntax errors are placed in the file.
func TestPositions(t *testing.T) {
	doc := "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": \"*\"},\n    {\n      \"Sid\": \"B\", \"Effect\": \"Deny\", \"Action\": \"s3:*\", \"Resource\": \"*\"}\n  ]\n}\n"
	p, err := Parse("p.json", []byte(doc), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d:%d %d:%d", p.Statements[0].Line, p.Statements[0].Col, p.Statements[1].Line, p.Statements[1].Col); got != "4:5 5:5" {
		t.Errorf("statements at %s", got)
	}
	_, err = Parse("bad.json", []byte("{\n  \"Statement\": [\n    {\"Effect\": \"Allow\",,}\n  ]\n}"), false)
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || e.Col != 24 {
		t.Errorf("syntax error: %#v", err)
	}
}

// TestVariablesNeedTheirVersion: ${...} is a policy variable only in a
// document of Version 2012-10-17; in one of 2008-10-17 or of no Version,
// AWS reads it as literal text. A boundary's deny of iam:PassRole outside
// the caller's team's roles then denies every role, the team's too.
func TestVariablesNeedTheirVersion(t *testing.T) {
	identity, _ := Parse("controller", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"*"}]}`), false)
	req := Request{Action: "iam:PassRole", Resource: "arn:aws:iam::111122223333:role/platform-node",
		Context: map[string][]string{"aws:PrincipalTag/team": {"platform"}}}
	for _, tc := range []struct {
		version string
		want    Decision
	}{
		{`"Version":"2012-10-17",`, Allowed},
		{`"Version":"2008-10-17",`, ExplicitlyDenied},
		{``, ExplicitlyDenied},
	} {
		doc := `{` + tc.version + `"Statement":[
			{"Effect":"Allow","Action":"*","Resource":"*"},
			{"Sid":"OwnTeamOnly","Effect":"Deny","Action":"iam:PassRole","NotResource":"arn:aws:iam::*:role/${aws:PrincipalTag/team}-*"},
			{"Sid":"TaggedOnly","Effect":"Deny","Action":"iam:PassRole","Resource":"*","Condition":{"StringNotLike":{"aws:PrincipalTag/team":"${aws:PrincipalTag/team}"}}}]}`
		boundary, err := Parse("boundary", []byte(doc), false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Evaluate(Policies{Identity: []*Policy{identity}, Boundary: boundary}, req)
		if err != nil || res.Decision != tc.want {
			t.Errorf("%s: %+v %v, want %s", tc.version, res, err, tc.want)
		}
		if tc.want == ExplicitlyDenied && (len(res.By) != 2 || res.By[0].Sid != "OwnTeamOnly" || res.By[1].Sid != "TaggedOnly") {
			t.Errorf("%s: denied by %v, want both statements (the literal text matches neither the role nor the tag)", tc.version, res.By)
		}
	}
}

// TestRCPFullAWSAccess: the AWS-managed RCPFullAWSAccess, which every
// root, OU and account holds, is read and lets requests through; an
// Allow of any other shape in an RCP, and an RCP without the 2012-10-17
// Version, are refused as AWS refuses them.
func TestRCPFullAWSAccess(t *testing.T) {
	full, err := Parse("RCPFullAWSAccess", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`), true)
	if err != nil {
		t.Fatal(err)
	}
	identity, _ := Parse("controller", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:*","Resource":"*"}]}`), false)
	res, err := Evaluate(Policies{Identity: []*Policy{identity}, RCPs: []Level{{Name: "root", Policies: []*Policy{full}}}},
		Request{Action: "sqs:ReceiveMessage", Resource: "arn:aws:sqs:us-east-1:1:q"})
	if err != nil || res.Decision != Allowed {
		t.Errorf("under RCPFullAWSAccess: %+v %v", res, err)
	}
	for doc, want := range map[string]string{
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}]}`:                                                 "allows only as RCPFullAWSAccess does",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}]}`: "allows only as RCPFullAWSAccess does",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`:                                                                            `must have "Version": "2012-10-17"`,
	} {
		if _, err := Parse("rcp", []byte(doc), true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

// TestLiteralCharacters: ${*}, ${?} and ${$} are IAM's asterisk,
// question mark and dollar sign in any string that takes policy
// variables, never wildcards; a value substituted for a variable is
// literal too. An Allow on a tag written ${*} allows only the tag "*".
func TestLiteralCharacters(t *testing.T) {
	at := "arn:aws:ec2:us-east-1:111122223333:instance/i-1"
	for _, c := range []struct {
		op, value, tag string
		want           Decision
	}{
		{"StringLike", "${*}", "anything", ImplicitlyDenied},
		{"StringLike", "${*}", "*", Allowed},
		{"StringLike", "a${?}", "ab", ImplicitlyDenied},
		{"StringLike", "a${?}", "a?", Allowed},
		{"StringLike", "${$}{x}*", "${x}y", Allowed},
		{"StringLike", "*", "anything", Allowed},
		{"StringLike", `a\*`, `a\b`, Allowed},
		{"StringLike", "${aws:PrincipalTag/team}", "anything", ImplicitlyDenied},
		{"StringLike", "${aws:PrincipalTag/team}", "*", Allowed},
		{"StringEquals", "a${?}", "a?", Allowed},
		{"StringEquals", "${*}", "*", Allowed},
		{"StringEquals", "${*}", "x", ImplicitlyDenied},
		{"ArnLike", "arn:aws:iam::1:role/${*}", "arn:aws:iam::1:role/x", ImplicitlyDenied},
	} {
		key := "aws:ResourceTag/team"
		if strings.HasPrefix(c.op, "Arn") {
			key = "aws:PrincipalArn"
		}
		doc := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*","Resource":"*","Condition":{%q:{%q:%q}}}]}`, c.op, key, c.value)
		p, err := Parse("p", []byte(doc), false)
		if err != nil {
			t.Fatal(err)
		}
		r := Request{Action: "ec2:TerminateInstances", Resource: at, Context: map[string][]string{key: {c.tag}, "aws:PrincipalTag/team": {"*"}}}
		if res, err := Evaluate(Policies{Identity: []*Policy{p}}, r); err != nil || res.Decision != c.want {
			t.Errorf("%s %q against %q: %s %v, want %s", c.op, c.value, c.tag, res.Decision, err, c.want)
		}
	}
}

// TestKeysAWSAlwaysSends: a deny on aws:CurrentTime, aws:EpochTime or
// aws:ViaAWSService applies though the request names none of them, as
// AWS puts them in every request.
func TestKeysAWSAlwaysSends(t *testing.T) {
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	allow := `{"Effect":"Allow","Action":"*","Resource":"*"}`
	for cond, want := range map[string]Decision{
		`{"DateGreaterThan":{"aws:CurrentTime":"2026-01-01T00:00:00Z"}}`: ExplicitlyDenied,
		`{"DateGreaterThan":{"aws:CurrentTime":"2027-01-01T00:00:00Z"}}`: Allowed,
		`{"NumericGreaterThan":{"aws:EpochTime":"1767225600"}}`:          ExplicitlyDenied,
		`{"Bool":{"aws:ViaAWSService":"false"}}`:                         ExplicitlyDenied,
		`{"Bool":{"aws:ViaAWSService":"true"}}`:                          Allowed,
		`{"Bool":{"aws:SecureTransport":"true"}}`:                        ExplicitlyDenied,
		`{"Null":{"aws:CurrentTime":"false"}}`:                           ExplicitlyDenied,
	} {
		doc := `{"Version":"2012-10-17","Statement":[` + allow + `,{"Effect":"Deny","Action":"*","Resource":"*","Condition":` + cond + `}]}`
		p, err := Parse("p", []byte(doc), false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Evaluate(Policies{Identity: []*Policy{p}}, Request{Action: "sqs:SendMessage", Resource: "arn:aws:sqs:us-east-1:1:q", At: at})
		if err != nil || res.Decision != want {
			t.Errorf("deny on %s: %s %v, want %s", cond, res.Decision, err, want)
		}
	}
}
