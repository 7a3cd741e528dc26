package simulate

import (
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/facts/instancetypes"
)

// Prices are what a request's offerings cost and where that comes from.
type Prices struct {
	// OnDemand is each instance type's on-demand price an hour; nil
	// when nothing prices the region (the offerings then carry a proxy
	// that orders them, and the report shows no price).
	OnDemand map[string]float64
	// Spot is each instance type's spot price an hour by zone, as a
	// capture holds them; nil when spot is priced on demand.
	Spot map[string]map[string]float64
	// Currency is the ISO 4217 code of every price.
	Currency string
	// Source says where the prices come from, or why there are none.
	Source string
}

// Priced says whether anything prices the region.
func (p Prices) Priced() bool { return p.OnDemand != nil }

// spotNote says how spot nodes are priced without a capture: Karpenter's
// tables hold no spot prices (the provider reads them from EC2 as it
// runs).
const spotNote = "spot nodes are priced on demand, an upper bound: Karpenter ships no spot prices"

// TablePrices are the region's on-demand prices in Karpenter's shipped
// tables, or none, said.
func TablePrices(region string) Prices {
	od, ok := instancetypes.Prices(region)
	if !ok {
		return Prices{Source: fmt.Sprintf("none: %s's tables price %s, not %s; a capture of the cluster prices it (--state)",
			instancetypes.Source(), strings.Join(instancetypes.PricedRegions(), ", "), region)}
	}
	return Prices{OnDemand: od, Currency: instancetypes.Currency(region), Source: instancetypes.PriceSource(region)}
}

// CapturedPrices are the prices a capture holds for the region (c), with
// the tables' on-demand prices where it holds none; the tables' alone,
// said, for a capture without prices (nil).
func CapturedPrices(region string, c *live.Prices) Prices {
	p := TablePrices(region)
	if c == nil {
		p.Source += " (the capture holds no prices of the region)"
		return p
	}
	var from []string
	if c.OnDemand != nil {
		p.OnDemand, p.Currency = c.OnDemand, c.Currency
		from = append(from, "on-demand from the AWS Price List API"+dated(", published ", c.Published))
	} else if p.Priced() {
		from = append(from, "on-demand from "+p.Source+" (the capture holds none)")
	}
	if c.Spot != nil && p.Priced() {
		p.Spot = c.Spot
		from = append(from, "spot from EC2's spot price history"+dated(", newest ", c.SpotAt))
	}
	if len(from) > 0 {
		p.Source = fmt.Sprintf("the capture's prices for %s, in %s: %s", region, p.Currency, strings.Join(from, "; "))
	}
	return p
}

func dated(lead, when string) string {
	if when == "" {
		return ""
	}
	return lead + when
}
