package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/simulate"
)

// TestSimulatePricesInTheirCurrency: a China region's prices are yuan,
// and every price of the report is written in CNY, in text and in
// Markdown; never with a dollar sign.
func TestSimulatePricesInTheirCurrency(t *testing.T) {
	r := simulate.NewReport("dev", simulate.TablePrices("cn-north-1"), &simulate.Request{}, &simulate.Response{
		Nodes: []simulate.Node{{NodePool: "app", InstanceType: "m5.large", CapacityType: "on-demand", Zone: "cn-north-1a", Price: 1.013}},
	})
	if r.Capacity.Currency != "CNY" {
		t.Fatalf("currency %q, want CNY", r.Capacity.Currency)
	}
	var text, md bytes.Buffer
	if err := Simulate(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := SimulateMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if strings.Contains(out, "$") || !strings.Contains(out, "CNY 1.0130/h") || !strings.Contains(out, "in CNY") {
			t.Errorf("%s:\n%s", name, out)
		}
	}
}
