package live

// Prices are the prices a capture holds for its cluster's region, read
// from the sources Karpenter's pricing provider reads as it runs: the
// Price List API for on-demand, EC2's spot price history for spot.
type Prices struct {
	// Region is the region every price is of; Currency is the ISO 4217
	// code of every price (CNY in the China regions, USD elsewhere).
	Region, Currency string
	// OnDemand is each instance type's Linux on-demand price an hour,
	// nil when the capture holds none.
	OnDemand map[string]float64
	// Spot is each instance type's spot price an hour in each zone that
	// offers it, nil when the capture holds none.
	Spot map[string]map[string]float64
	// Published is the newest publication date of the on-demand
	// products ("2026-11-20"); SpotAt the newest spot price's time
	// ("2026-12-06 14:21 UTC").
	Published, SpotAt string
}
