package doctor

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// The Price List API's answer (get-products), as the AWS CLI prints it:
// each product a JSON document in a string.
type priceList struct {
	PriceList []string `json:"PriceList"`
}

// priceProduct is the part of one product the prices are read from.
type priceProduct struct {
	Product struct {
		Attributes struct {
			InstanceType string `json:"instanceType"`
			RegionCode   string `json:"regionCode"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
	PublicationDate string `json:"publicationDate"`
}

// spotHistory is describe-spot-price-history's answer.
type spotHistory struct {
	SpotPriceHistory []struct {
		AvailabilityZone string `json:"AvailabilityZone"`
		InstanceType     string `json:"InstanceType"`
		SpotPrice        string `json:"SpotPrice"`
		Timestamp        string `json:"Timestamp"`
	} `json:"SpotPriceHistory"`
}

// maxPrice bounds a price an hour: the dearest instance types cost tens
// of dollars (hundreds of yuan) an hour. A larger number is not a price
// EC2 quotes.
const maxPrice = 10000

// Prices reads the region's prices from a capture: the on-demand prices
// of both Price List files (shared tenancy, and bare metal as Karpenter
// asks for it) and the spot prices in force when it was taken. nil when
// the capture holds neither. A price of another region is an error: the
// capture is of another environment.
func Prices(s *State, region string) (*live.Prices, error) {
	p := &live.Prices{Region: region, Currency: "USD"}
	if strings.HasPrefix(region, "cn-") {
		p.Currency = "CNY" // as Karpenter reads the China regions' prices
	}
	for _, file := range []string{live.FileOnDemandPrices, live.FileOnDemandMetalPrices} {
		if err := readOnDemand(s, file, p); err != nil {
			return nil, err
		}
	}
	if err := readSpot(s, p); err != nil {
		return nil, err
	}
	if p.OnDemand == nil && p.Spot == nil {
		return nil, nil
	}
	return p, nil
}

func readOnDemand(s *State, file string, p *live.Prices) error {
	var list priceList
	if ok, err := readKnown(s, file, &list); err != nil || !ok {
		return err
	}
	if p.OnDemand == nil {
		p.OnDemand = map[string]float64{}
	}
	for i, doc := range list.PriceList {
		at := fmt.Sprintf("PriceList[%d]", i)
		var x priceProduct
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return &StateError{File: file, Path: at, Reason: "not a Price List product: " + err.Error()}
		}
		a := x.Product.Attributes
		if a.RegionCode != p.Region {
			return &StateError{File: file, Path: at + ".product.attributes.regionCode", Reason: fmt.Sprintf("%s: the prices are of another region than the environment's %s; capture this environment's", strconv.Quote(escape.Terminal(a.RegionCode)), p.Region)}
		}
		if x.PublicationDate != "" {
			t, err := time.Parse(time.RFC3339, x.PublicationDate)
			if err != nil {
				return &StateError{File: file, Path: at + ".publicationDate", Reason: fmt.Sprintf("%s is not a time", strconv.Quote(escape.Terminal(x.PublicationDate)))}
			}
			if d := t.UTC().Format(time.DateOnly); d > p.Published {
				p.Published = d
			}
		}
		for _, term := range x.Terms.OnDemand {
			for _, dim := range term.PriceDimensions {
				v, ok := dim.PricePerUnit[p.Currency]
				if !ok {
					continue
				}
				price, err := parsePrice(v)
				if err != nil {
					return &StateError{File: file, Path: at + ".terms.OnDemand.pricePerUnit." + p.Currency, Reason: err.Error()}
				}
				// A zero is no price (Karpenter skips it too); of two
				// the lower, whatever order the terms come in.
				if old, seen := p.OnDemand[a.InstanceType]; price > 0 && a.InstanceType != "" && (!seen || price < old) {
					p.OnDemand[a.InstanceType] = price
				}
			}
		}
	}
	return nil
}

func readSpot(s *State, p *live.Prices) error {
	var h spotHistory
	if ok, err := readKnown(s, live.FileSpotPrices, &h); err != nil || !ok {
		return err
	}
	p.Spot = map[string]map[string]float64{}
	newest := map[[2]string]time.Time{}
	var latest time.Time
	for i, x := range h.SpotPriceHistory {
		at := fmt.Sprintf("SpotPriceHistory[%d]", i)
		if facts.RegionOfZone(x.AvailabilityZone) != p.Region {
			return &StateError{File: live.FileSpotPrices, Path: at + ".AvailabilityZone", Reason: fmt.Sprintf("%s is not a zone of the environment's region %s; capture this environment's", strconv.Quote(escape.Terminal(x.AvailabilityZone)), p.Region)}
		}
		price, err := parsePrice(x.SpotPrice)
		if err != nil {
			return &StateError{File: live.FileSpotPrices, Path: at + ".SpotPrice", Reason: err.Error()}
		}
		t, err := time.Parse(time.RFC3339, x.Timestamp)
		if err != nil {
			return &StateError{File: live.FileSpotPrices, Path: at + ".Timestamp", Reason: fmt.Sprintf("%s is not a time", strconv.Quote(escape.Terminal(x.Timestamp)))}
		}
		if price == 0 || x.InstanceType == "" {
			continue
		}
		// The newest record of a type in a zone is its price (both
		// product descriptions may hold one); at the same time, the
		// lower.
		k := [2]string{x.InstanceType, x.AvailabilityZone}
		zones := p.Spot[x.InstanceType]
		if zones == nil {
			zones = map[string]float64{}
			p.Spot[x.InstanceType] = zones
		}
		old, seen := newest[k]
		if !seen || t.After(old) || t.Equal(old) && price < zones[x.AvailabilityZone] {
			newest[k], zones[x.AvailabilityZone] = t, price
		}
		if t.After(latest) {
			latest = t
		}
	}
	if !latest.IsZero() {
		p.SpotAt = latest.UTC().Format("2006-01-02 15:04 UTC")
	}
	return nil
}

// parsePrice reads a price an hour as the APIs write it ("0.1180000000").
func parsePrice(v string) (float64, error) {
	price, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(price) || price < 0 || price > maxPrice {
		return 0, fmt.Errorf("%s is not a price an hour", strconv.Quote(escape.Terminal(v)))
	}
	return price, nil
}
