package instancetypes

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/karpgen/karpgen/internal/profile"
)

// TestLabels: the labels of a few types, as Karpenter and AWS name them.
func TestLabels(t *testing.T) {
	want := map[string]string{
		"m5.large":         "m5 m 5 large amd64",
		"c6gn.16xlarge":    "c6gn c 6 16xlarge arm64",
		"a1.metal":         "a1 a 1 metal arm64",
		"is4gen.8xlarge":   "is4gen is 4 8xlarge arm64",
		"x2gd.medium":      "x2gd x 2 medium arm64",
		"c7g-flex.large":   "c7g-flex c 7 large arm64",
		"c8i-flex.large":   "c8i-flex c 8 large amd64",
		"g5g.xlarge":       "g5g g 5 xlarge arm64",
		"g4dn.xlarge":      "g4dn g 4 xlarge amd64",
		"u-6tb1.56xlarge":  "u-6tb1 u 1 56xlarge amd64",
		"mac2-m2.metal":    "mac2-m2 mac 2 metal ",
		"mac-m4pro.metal":  "mac-m4pro  0 metal ",
		"p6-b200.48xlarge": "p6-b200 p 6 48xlarge amd64",
	}
	seen := 0
	for _, ty := range All() {
		if w, ok := want[ty.Name]; ok {
			seen++
			if got := fmt.Sprintf("%s %s %d %s %s", ty.Family, ty.Category, ty.Generation, ty.Size, ty.Arch); got != w {
				t.Errorf("%s: %q, want %q", ty.Name, got, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d types in the table", seen, len(want))
	}
	if n := len(All()); n < 1000 {
		t.Errorf("the table holds %d types", n)
	}
}

// TestENIMaxPods: the VPC CNI's count, e.g. 29 on m5.large (3 × 9 + 2).
func TestENIMaxPods(t *testing.T) {
	for _, ty := range All() {
		if ty.Name == "m5.large" && ty.ENIMaxPods() != 29 {
			t.Errorf("m5.large: %d pods, want 29", ty.ENIMaxPods())
		}
		if ty.Name == "t3.micro" && ty.ENIMaxPods() != 4 {
			t.Errorf("t3.micro: %d pods, want 4", ty.ENIMaxPods())
		}
	}
}

func names(ts []Type) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, " ")
}

// TestSelect: requirements as a pool writes them select the types
// Karpenter would consider, with prices where the table has the region.
func TestSelect(t *testing.T) {
	five := 7
	cases := []struct {
		name   string
		pool   profile.NodePool
		region string
		want   string // the types, or their count
	}{
		{"family and size", profile.NodePool{InstanceFamilies: []string{"m5"}, InstanceSizes: []string{"large", "xlarge"}}, "us-east-1", "m5.large m5.xlarge"},
		{"arm64 excludes x86 families", profile.NodePool{Arch: []string{"arm64"}, InstanceFamilies: []string{"m5", "m6g"}, InstanceSizes: []string{"large"}}, "us-east-1", "m6g.large"},
		{"nothing", profile.NodePool{Arch: []string{"arm64"}, InstanceFamilies: []string{"m5"}}, "us-east-1", ""},
		{"NotIn and Gt", profile.NodePool{InstanceCategories: []string{"t"}, InstanceGenerationAbove: &five,
			Requirements: []profile.Requirement{{Key: "karpenter.k8s.aws/instance-size", Operator: "NotIn", Values: []string{"nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"}}}}, "us-east-1", ""},
		{"type list", profile.NodePool{InstanceTypes: []string{"c5.large", "c5.nope"}}, "eu-west-1", "c5.large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Select(c.pool, c.region)
			if got := names(s.Types); got != c.want {
				t.Errorf("types %q, want %q", got, c.want)
			}
		})
	}
	s := Select(profile.NodePool{InstanceFamilies: []string{"m5"}, InstanceSizes: []string{"large", "xlarge"}}, "us-east-1")
	if !s.Regional || len(s.InRegion) != 2 || s.MinPrice != 0.096 || s.MaxPrice != 0.192 {
		t.Errorf("us-east-1 prices: %+v", s)
	}
	s = Select(profile.NodePool{InstanceCPU: []int{4}, InstanceFamilies: []string{"c5"}}, "ap-northeast-2")
	if s.Regional || len(s.InRegion) != 0 || strings.Join(s.Unevaluated, ",") != "karpenter.k8s.aws/instance-cpu" || len(s.Types) < 5 {
		t.Errorf("ap-northeast-2, cpu: %+v", s)
	}
}

// TestSchemeIsKarpentersPattern: category and generation are read from
// every type's name as Karpenter's pattern reads them.
func TestSchemeIsKarpentersPattern(t *testing.T) {
	pattern := regexp.MustCompile(`(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`)
	names := []string{"u-6tb1.metal", "u7i-12tb.224xlarge", "x", "m5", "1a.large", "mac2-m2pro.metal", "trn1n.32xlarge"}
	for _, ty := range All() {
		names = append(names, ty.Name)
	}
	for _, name := range names {
		category, generation, ok := scheme(name)
		var want [2]string
		m := pattern.FindStringSubmatch(name)
		if m != nil {
			want = [2]string{m[1], m[3]}
		}
		if got := [2]string{category, strconv.Itoa(generation)}; ok != (m != nil) || ok && got != want {
			t.Errorf("%s: %v %v, want %v %v", name, got, ok, want, m != nil)
		}
	}
}

// TestPricesOfEachRegion: a region's prices, parsed from its block of
// the sorted table on first use, are every line of the table for it.
func TestPricesOfEachRegion(t *testing.T) {
	want := map[string]map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(pricesTSV), "\n") {
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) != 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		if want[f[0]] == nil {
			want[f[0]] = map[string]float64{}
		}
		want[f[0]][f[1]] = v
	}
	if got := PricedRegions(); fmt.Sprint(got) != fmt.Sprint(slices.Sorted(maps.Keys(want))) || len(got) == 0 {
		t.Errorf("priced regions %v", got)
	}
	for region, prices := range want {
		got, ok := Prices(region)
		if !ok || !maps.Equal(got, prices) {
			t.Errorf("%s: %d prices, want %d", region, len(got), len(prices))
		}
	}
	if p, ok := Prices("eu-west-1"); ok || p != nil {
		t.Errorf("a region without prices: %v %v", p, ok)
	}
}

// TestPricesCarryTheirCurrency: the China regions' prices are yuan, as
// the Price List API gives them to Karpenter's tables (m5.large is
// 1.013 CNY an hour in cn-north-1, 0.096 USD in us-east-1), and are
// written with their code, never as dollars.
func TestPricesCarryTheirCurrency(t *testing.T) {
	for _, c := range []struct{ region, currency, m5, source string }{
		{"cn-north-1", "CNY", "CNY 1.0130/h", "on-demand prices for cn-north-1, in CNY, generated 2024-11-06"},
		{"us-east-1", "USD", "$0.0960/h", "on-demand prices for us-east-1, in USD, generated"},
		{"us-gov-west-1", "USD", "", "in USD"},
	} {
		if got := Currency(c.region); got != c.currency {
			t.Errorf("Currency(%s) = %s, want %s", c.region, got, c.currency)
		}
		if c.m5 != "" {
			prices, _ := Prices(c.region)
			if got := PerHour(prices["m5.large"], Currency(c.region)); got != c.m5 {
				t.Errorf("%s: m5.large is %s, want %s", c.region, got, c.m5)
			}
		}
		if got := PriceSource(c.region); !strings.Contains(got, c.source) {
			t.Errorf("PriceSource(%s) = %q, want it to hold %q", c.region, got, c.source)
		}
	}
}
