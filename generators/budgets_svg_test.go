package generators

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// TestBudgetsSVG: the heat map is well-formed XML, draws every hour of
// every reason group of every pool, and colours each hour by the limit
// Karpenter applies in it, in the profile's zone.
func TestBudgetsSVG(t *testing.T) {
	p := &profile.Profile{TimeZone: "Asia/Seoul", NodePools: map[string]profile.NodePool{
		"app": {Disruption: profile.Disruption{Budgets: []profile.Budget{
			{Nodes: "10%"},
			{Nodes: "0", Reasons: []string{"Drifted"}, Schedule: "0 9 * * mon-fri", Duration: "10h"},
		}}},
		"batch<&>": {Disruption: profile.Disruption{Budgets: []profile.Budget{{Nodes: "3", Reasons: []string{"Empty"}}}}},
	}}
	svg := BudgetsSVG(p, &facts.Minor{BudgetReasons: []string{"Underutilized", "Empty", "Drifted"}})
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
	s := string(svg)
	for _, want := range []string{
		"(Asia/Seoul)",
		"pool app", "Underutilized, Empty", "Drifted",
		"pool batch&lt;&amp;&gt;", "Underutilized, Drifted",
		`fill="#f0b429"><title>Mon 00:00–09:00: 10%</title>`,
		`fill="#c0392b"><title>Mon 09:00–19:00: 0</title>`,
		`fill="#c0392b"><title>Fri 09:00–19:00: 0</title>`,
		`fill="#f0b429"><title>Fri 19:00–24:00: 10%</title>`,
		`fill="#f0b429"><title>Sat 00:00–24:00: 10%</title>`,
		`fill="#2e8b57"><title>Mon 00:00–24:00: no limit</title>`,
		`fill="#5b8def"><title>Sun 00:00–24:00: 3</title>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("budgets.svg lacks %s", want)
		}
	}
	// app's two reason groups and batch's two: a grid each.
	if n := strings.Count(s, "<path "); n != 4 {
		t.Errorf("%d grids drawn, want 4", n)
	}
	// A week's rectangles cover its 7 × 24 hours exactly: app's Drifted
	// week has three runs on weekdays and one at the weekend.
	if n := strings.Count(s, "<title>"); n != 7+(5*3+2)+7+7 {
		t.Errorf("%d runs drawn, want %d", n, 7+(5*3+2)+7+7)
	}
}
