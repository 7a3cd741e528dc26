package doctor

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/iampolicy"
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
			if !lets(have, model.EventsPrincipal, n.QueueARN) {
				c.report("queue "+n.Queue, "a policy statement letting "+model.EventsPrincipal+" send messages to it (sqs:SendMessage)", compact(have),
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

// lets reports a queue policy with an Allow statement for the service
// principal to send messages (sqs:SendMessage, or sqs:*) to the queue.
func lets(policy any, service, queueARN string) bool {
	doc, _ := policy.(map[string]any)
	var statements []any
	switch st := doc["Statement"].(type) {
	case []any:
		statements = st
	case map[string]any:
		statements = []any{st}
	}
	for _, x := range statements {
		st, _ := x.(map[string]any)
		if st["Effect"] != "Allow" || st["Condition"] != nil {
			continue
		}
		principal, _ := st["Principal"].(map[string]any)
		if !slices.Contains(iampolicy.Strings(principal["Service"]), service) {
			continue
		}
		actions := iampolicy.Strings(st["Action"])
		if !slices.Contains(actions, "sqs:SendMessage") && !slices.Contains(actions, "sqs:*") && !slices.Contains(actions, "*") {
			continue
		}
		resources := iampolicy.Strings(st["Resource"])
		if st["Resource"] == nil || slices.Contains(resources, queueARN) || slices.Contains(resources, "*") {
			return true
		}
	}
	return false
}
