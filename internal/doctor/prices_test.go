package doctor_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/doctor/live"
)

// product is one Price List product as get-products returns it: a JSON
// document in a string.
func product(region, typ, currency, price string) string {
	return fmt.Sprintf(`"{\"product\":{\"productFamily\":\"Compute Instance\",\"attributes\":{\"instanceType\":\"%s\",\"regionCode\":\"%s\",\"operatingSystem\":\"Linux\"}},\"terms\":{\"OnDemand\":{\"X.JRTCKXETXF\":{\"priceDimensions\":{\"X.JRTCKXETXF.6YS6EN2CT7\":{\"unit\":\"Hrs\",\"pricePerUnit\":{\"%s\":\"%s\"}}}}}},\"publicationDate\":\"2026-11-20T19:52:46Z\"}"`, typ, region, currency, price)
}

// TestPricesAsKarpenterReadsThem: the China regions' prices are read in
// yuan; a zero is no price; the newest spot record of a type in a zone
// is its price, and of two at once the lower; a price of another region
// or one that is not a number is refused, naming the file and the path.
func TestPricesAsKarpenterReadsThem(t *testing.T) {
	state := func(files map[string]string) *doctor.State {
		fsys := fstest.MapFS{}
		for name, data := range files {
			fsys[name] = &fstest.MapFile{Data: []byte(data)}
		}
		return doctor.NewState(fsys, "state")
	}
	spot := func(records ...string) string {
		return `{"SpotPriceHistory": [` + strings.Join(records, ",") + `]}`
	}
	rec := func(zone, typ, price, at string) string {
		return fmt.Sprintf(`{"AvailabilityZone": %q, "InstanceType": %q, "ProductDescription": "Linux/UNIX", "SpotPrice": %q, "Timestamp": %q}`, zone, typ, price, at)
	}
	p, err := doctor.Prices(state(map[string]string{
		live.FileOnDemandPrices: `{"FormatVersion": "aws_v1", "PriceList": [` + product("cn-north-1", "c5.large", "CNY", "0.8080000000") + "," + product("cn-north-1", "c5.xlarge", "CNY", "0.0000000000") + `]}`,
		live.FileSpotPrices: spot(
			rec("cn-north-1a", "c5.large", "0.300000", "2026-12-06T08:00:00+00:00"),
			rec("cn-north-1a", "c5.large", "0.250000", "2026-12-06T09:00:00+00:00"),
			rec("cn-north-1a", "c5.large", "0.260000", "2026-12-06T09:00:00+00:00"),
			rec("cn-north-1b", "c5.large", "0.280000", "2026-12-05T23:00:00+00:00")),
	}), "cn-north-1")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %v %v %s %s", p.Currency, p.OnDemand, p.Spot, p.Published, p.SpotAt)
	want := "CNY map[c5.large:0.808] map[c5.large:map[cn-north-1a:0.25 cn-north-1b:0.28]] 2026-11-20 2026-12-06 09:00 UTC"
	if got != want {
		t.Errorf("prices %s, want %s", got, want)
	}
	if p, err := doctor.Prices(state(nil), "cn-north-1"); p != nil || err != nil {
		t.Errorf("no price files: %v %v, want none", p, err)
	}
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{live.FileOnDemandPrices: `{"PriceList": [` + product("ap-northeast-1", "c5.large", "USD", "0.1") + `]}`},
			`pricing-ec2-on-demand.json: PriceList[0].product.attributes.regionCode: "ap-northeast-1": the prices are of another region than the environment's ap-northeast-2; capture this environment's`},
		{map[string]string{live.FileOnDemandMetalPrices: `{"PriceList": [` + product("ap-northeast-2", "c5.metal", "USD", "-4") + `]}`},
			`pricing-ec2-on-demand-metal.json: PriceList[0].terms.OnDemand.pricePerUnit.USD: "-4" is not a price an hour`},
		{map[string]string{live.FileOnDemandPrices: `{"PriceList": ["{not json"]}`},
			`pricing-ec2-on-demand.json: PriceList[0]: not a Price List product: invalid character 'n' looking for beginning of object key string`},
		{map[string]string{live.FileSpotPrices: spot(rec("ap-northeast-2a", "c5.large", "1e9", "2026-12-06T09:00:00+00:00"))},
			`ec2-spot-prices.json: SpotPriceHistory[0].SpotPrice: "1e9" is not a price an hour`},
		{map[string]string{live.FileSpotPrices: spot(rec("ap-northeast-2a", "c5.large", "0.1", "yesterday"))},
			`ec2-spot-prices.json: SpotPriceHistory[0].Timestamp: "yesterday" is not a time`},
	} {
		_, err := doctor.Prices(state(tc.files), "ap-northeast-2")
		if err == nil || err.Error() != tc.want {
			t.Errorf("err %v\nwant %s", err, tc.want)
		}
	}
}

// TestCaptureAsksForPricesWhereKarpenterDoes: the capture asks the Price
// List endpoint Karpenter's pricing provider asks (ap-south-1 for Seoul),
// with its filters, and
// the spot prices in force when it runs.
func TestCaptureAsksForPricesWhereKarpenterDoes(t *testing.T) {
	script := doctor.Script(prodEnv(t))
	for _, want := range []string{
		`run pricing-ec2-on-demand.json aws pricing get-products --region ap-south-1 --service-code AmazonEC2 --filters '[{"Field":"regionCode","Type":"TERM_MATCH","Value":"ap-northeast-2"},{"Field":"serviceCode","Type":"TERM_MATCH","Value":"AmazonEC2"},{"Field":"preInstalledSw","Type":"TERM_MATCH","Value":"NA"},{"Field":"operatingSystem","Type":"TERM_MATCH","Value":"Linux"},{"Field":"capacitystatus","Type":"TERM_MATCH","Value":"Used"},{"Field":"marketoption","Type":"TERM_MATCH","Value":"OnDemand"},{"Field":"tenancy","Type":"TERM_MATCH","Value":"Shared"},{"Field":"productFamily","Type":"TERM_MATCH","Value":"Compute Instance"}]' --output json` + "\n",
		`{"Field":"tenancy","Type":"TERM_MATCH","Value":"Dedicated"},{"Field":"productFamily","Type":"TERM_MATCH","Value":"Compute Instance (bare metal)"}]' --output json` + "\n",
		`run ec2-spot-prices.json aws ec2 describe-spot-price-history --region ap-northeast-2 --product-descriptions Linux/UNIX "Linux/UNIX (Amazon VPC)" --start-time "$now" --output json` + "\n",
		"now=$(date -u +%Y-%m-%dT%H:%M:%SZ)\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the capture script lacks\n%s", want)
		}
	}
}
