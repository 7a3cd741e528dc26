package doctor

import (
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iam/guardrails"
	"github.com/karpgen/karpgen/internal/iam/iampolicy"
	"github.com/karpgen/karpgen/internal/iameval"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// checkInterruption judges the queue and its rules by what they do. A
// queue the bundle creates must hold the rendered policy; one the profile
// adopts (karpenter.existingInterruptionQueue, such as the queue and
// rules of upstream's getting-started stack, named Karpenter-<cluster>-
// ScheduledChangeRule-<suffix>) must let EventBridge send to it. Rules
// are found by their event pattern and by targeting the queue
// (list-rule-names-by-target), never by name: only a rule missing for an
// event the minor reads is a finding.
func checkInterruption(c *checkRun) {
	n := c.e.Names
	if n.Queue == "" {
		return
	}
	var q sqsQueue
	if c.load("sqs-queue.json", &q, "queue "+n.Queue, "the interruption queue", c.deployIAM()) {
		var have any
		json.Unmarshal([]byte(q.Attributes["Policy"]), &have)
		switch {
		case n.QueueExists:
			if ok, why := c.queueLets(have); !ok {
				c.report("queue "+n.Queue, "a policy statement letting "+model.EventsPrincipal+" send messages to it (sqs:SendMessage)", why+": "+compact(have),
					"add the statement of "+c.file(model.FileQueuePolicy)+" to the queue's policy (aws sqs set-queue-attributes)")
			}
		default:
			want := iampolicy.Normalize(generators.InterruptionQueuePolicy(n))
			delete(want.(map[string]any), "Version")
			if m, ok := have.(map[string]any); ok {
				delete(m, "Version")
			}
			if !reflect.DeepEqual(iampolicy.Normalize(have), want) {
				c.report("queue "+n.Queue, "the policy of "+c.file(model.FileQueuePolicy), compact(have), c.deployIAM())
			}
		}
	}
	var rules eventsRules
	if !c.load("events-rules.json", &rules, "EventBridge rules", "the interruption rules", "") {
		return
	}
	var targeting struct {
		RuleNames []string `json:"RuleNames"`
	}
	if !c.load("events-rules-by-target.json", &targeting, "EventBridge rules", "the rules that target queue "+n.Queue, "") {
		return
	}
	for _, r := range c.e.Facts.InterruptionRules {
		var matching []string
		sends := false
		for _, have := range rules.Rules {
			if have.State == "DISABLED" || !patternMatches(have.EventPattern, r) {
				continue
			}
			matching = append(matching, have.Name)
			sends = sends || slices.Contains(targeting.RuleNames, have.Name)
		}
		if sends || c.dry {
			continue
		}
		resource := "events " + r.Source + " / " + r.DetailType
		want := "a rule for them that targets queue " + n.Queue
		switch {
		case len(matching) > 0:
			c.report(resource, want, "rules "+strings.Join(matching, ", ")+", none of them targeting the queue",
				escape.ShellJoin("aws", "events", "put-targets", "--region", n.Region, "--rule", matching[0], "--targets", "Id=KarpenterInterruptionQueueTarget,Arn="+n.QueueARN))
		case n.QueueExists:
			name := n.RuleName(r)
			pattern, _ := json.Marshal(map[string][]string{"source": {r.Source}, "detail-type": {r.DetailType}})
			c.report(resource, want, "none",
				escape.ShellJoin("aws", "events", "put-rule", "--region", n.Region, "--name", name, "--event-pattern", string(pattern))+" && "+
					escape.ShellJoin("aws", "events", "put-targets", "--region", n.Region, "--rule", name, "--targets", "Id=KarpenterInterruptionQueueTarget,Arn="+n.QueueARN))
		default:
			c.report(resource, want, "none", c.deployIAM())
		}
	}
}

// patternMatches reports an EventBridge event pattern that takes in the
// rule's events: its source and detail-type among the pattern's.
func patternMatches(pattern string, r facts.Rule) bool {
	var p struct {
		Source     []string `json:"source"`
		DetailType []string `json:"detail-type"`
	}
	if json.Unmarshal([]byte(pattern), &p) != nil {
		return false
	}
	return slices.Contains(p.Source, r.Source) && slices.Contains(p.DetailType, r.DetailType)
}

// queueLets evaluates an adopted queue's resource policy for what
// EventBridge asks when a rule sends it an event: sqs:SendMessage on the
// queue by events.amazonaws.com, over TLS, with the rule's ARN as
// aws:SourceArn and the account as aws:SourceAccount. Each rule that
// targets the queue is asked for (the capture's list-rules gives their
// ARNs); with none known, a rule of the account stands for them. Only
// the statements whose principal takes in the service (or everyone)
// take part, as AWS reads a resource policy; a condition on the source
// is met as the request meets it, and a Deny (upstream's non-TLS one)
// denies. why is the closest statement's failure when not allowed.
func (c *checkRun) queueLets(policy any) (ok bool, why string) {
	doc, _ := policy.(map[string]any)
	var statements []any
	switch st := doc["Statement"].(type) {
	case []any:
		statements = st
	case map[string]any:
		statements = []any{st}
	}
	var kept []any
	for _, x := range statements {
		st, _ := x.(map[string]any)
		if st == nil || !principalTakesIn(st, model.EventsPrincipal) {
			continue
		}
		st = maps.Clone(st)
		delete(st, "Principal")
		delete(st, "NotPrincipal")
		kept = append(kept, st)
	}
	if len(kept) == 0 {
		return false, "no statement names " + model.EventsPrincipal
	}
	version, _ := doc["Version"].(string)
	data, err := json.Marshal(map[string]any{"Version": version, "Statement": kept})
	if err != nil {
		return false, err.Error()
	}
	p, err := iameval.Parse("queue policy", data, false)
	if err != nil {
		return false, "a policy karpgen cannot evaluate (" + err.Error() + ")"
	}
	org := ""
	if g := c.e.Profile.Guardrails; g != nil {
		org = g.OrganizationID
	}
	for _, arn := range c.rulesTargetingQueue() {
		res, err := iameval.Evaluate(iameval.Policies{Identity: []*iameval.Policy{p}}, guardrails.Delivery(c.e, arn, org))
		if err != nil {
			return false, err.Error()
		}
		if res.Decision != iameval.Allowed {
			cause, closest := causeOf(res)
			if closest != "" {
				cause = "closest: " + closest
			}
			return false, "sqs:SendMessage for rule " + arn + " is not allowed (" + cause + ")"
		}
	}
	return true, ""
}

// principalTakesIn reports a statement of a resource policy that applies
// to the service: its Principal is the service or everyone ("*", or AWS
// "*"), or its NotPrincipal, which applies to every principal it does
// not name, does not name the service (nor everyone). A Deny with
// NotPrincipal denies the service unless it is named there.
func principalTakesIn(st map[string]any, service string) bool {
	names := func(principal any) bool {
		if s, ok := principal.(string); ok {
			return s == "*"
		}
		m, _ := principal.(map[string]any)
		return slices.Contains(iampolicy.Strings(m["Service"]), service) || slices.Contains(iampolicy.Strings(m["AWS"]), "*")
	}
	if np, ok := st["NotPrincipal"]; ok {
		return !names(np)
	}
	return names(st["Principal"])
}

// rulesTargetingQueue are the ARNs of the captured rules that target the
// queue, or, with none captured, the ARN of the rule the bundle would
// name for the first event the minor reads.
func (c *checkRun) rulesTargetingQueue() []string {
	n := c.e.Names
	var rules eventsRules
	var targeting struct {
		RuleNames []string `json:"RuleNames"`
	}
	var out []string
	if ok, _ := readKnown(c.s, "events-rules-by-target.json", &targeting); ok {
		if ok, _ := readKnown(c.s, "events-rules.json", &rules); ok {
			for _, r := range rules.Rules {
				if slices.Contains(targeting.RuleNames, r.Name) {
					out = append(out, cmp.Or(r.Arn, n.ARN("events", n.Region, n.Account, "rule/"+r.Name)))
				}
			}
		}
	}
	if len(out) == 0 && len(c.e.Facts.InterruptionRules) > 0 {
		out = append(out, n.ARN("events", n.Region, n.Account, "rule/"+n.RuleName(c.e.Facts.InterruptionRules[0])))
	}
	return out
}
