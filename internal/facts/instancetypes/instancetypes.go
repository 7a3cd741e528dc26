// Package instancetypes answers which EC2 instance types a NodePool's
// requirements let Karpenter launch, from upstream's own generated tables
// (data/, written by hack/instancetypes from a Karpenter release; see
// data/SOURCE): every instance type with its network interfaces, and the
// on-demand prices of one region per partition. data/capacity.tsv adds
// what EC2 says of each type's vCPUs, memory, GPUs and accelerators, from
// the provider's instance types reference (hack/instancecapacity), and
// NodeOf computes what a node of it offers pods as the provider does.
//
// The labels an instance type carries are Karpenter's: family and size
// split its name at the dot, category and generation come from the
// family as Karpenter's instance-type scheme reads it. The architecture
// is not in the tables; it follows AWS's naming: Graviton families carry
// a "g" among their attributes (m7g, c6gn, x2gd, is4gen), a1 is Graviton
// too, and every other family is x86 (mac families are neither, as
// Karpenter does not launch them).
package instancetypes

//go:generate go run ../../../hack/instancetypes

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/karpgen/karpgen/internal/util/lazyre"
)

// Type is one instance type and the labels Karpenter gives it.
type Type struct {
	Name, Family, Category, Size string
	Generation                   int
	// Arch is "amd64" or "arm64" ("" for a family Karpenter does not
	// launch).
	Arch string
	// ENIs and IPv4PerENI are its network interfaces and the IPv4
	// addresses of each.
	ENIs, IPv4PerENI int
	Hypervisor       string
	BareMetal        bool
}

// ENIMaxPods is how many pods the VPC CNI can give an address to without
// prefix delegation: one address per interface is the node's own, and
// two pods use the host network.
func (t Type) ENIMaxPods() int { return t.ENIs*(t.IPv4PerENI-1) + 2 }

var (
	//go:embed data/types.tsv
	typesTSV string
	//go:embed data/prices.tsv
	pricesTSV string

	load     sync.Once
	all      []Type
	pricesMu sync.Mutex
	prices   = map[string]map[string]float64{} // region -> type -> USD per hour; nil for a region without
)

// scheme reads category and generation from a type's name as Karpenter
// does (pkg/providers/instancetype): the leading letters, an optional
// memory size (u-6tb1), the generation digits, then more before the dot.
func scheme(name string) (category string, generation int, ok bool) {
	family, _, found := strings.Cut(name, ".")
	if !found {
		return "", 0, false
	}
	i := 0
	for i < len(family) && family[i] >= 'a' && family[i] <= 'z' {
		i++
	}
	if i == 0 {
		return "", 0, false
	}
	category, rest := family[:i], family[i:]
	if strings.HasPrefix(rest, "-") {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j > 1 && strings.HasPrefix(rest[j:], "tb") {
			rest = rest[j+2:]
		}
	}
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 {
		return "", 0, false
	}
	generation, _ = strconv.Atoi(rest[:j])
	return category, generation, true
}

func parse() {
	all = make([]Type, 0, strings.Count(typesTSV, "\n"))
	var f [5]string
	for line := range strings.Lines(typesTSV) {
		if strings.HasPrefix(line, "#") || !fields(strings.TrimSuffix(line, "\n"), f[:]) {
			continue
		}
		t := Type{Name: f[0], Hypervisor: f[3], BareMetal: f[4] == "true"}
		t.ENIs, _ = strconv.Atoi(f[1])
		t.IPv4PerENI, _ = strconv.Atoi(f[2])
		t.Family, t.Size, _ = strings.Cut(t.Name, ".")
		t.Category, t.Generation, _ = scheme(t.Name)
		t.Arch = archOf(t.Family)
		all = append(all, t)
	}
}

// fields splits a line of tab-separated fields into f, and says whether
// it has exactly len(f) of them.
func fields(line string, f []string) bool {
	for i := range f {
		var ok bool
		if i == len(f)-1 {
			f[i], ok = line, !strings.Contains(line, "\t")
			return ok
		}
		f[i], line, ok = strings.Cut(line, "\t")
		if !ok {
			return false
		}
	}
	return true
}

// regionPrices parses the prices of one region, on first use: a command
// needs the cluster's region's, not the table's every region.
func regionPrices(region string) map[string]float64 {
	pricesMu.Lock()
	defer pricesMu.Unlock()
	if p, ok := prices[region]; ok {
		return p
	}
	// The table is sorted by region: its lines are one block.
	var p map[string]float64
	prefix := region + "\t"
	start := strings.Index(pricesTSV, "\n"+prefix)
	if start < 0 {
		prices[region] = nil
		return nil
	}
	var f [3]string
	for line := range strings.Lines(pricesTSV[start+1:]) {
		if !strings.HasPrefix(line, prefix) {
			break
		}
		if !fields(strings.TrimSuffix(line, "\n"), f[:]) {
			continue
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			continue
		}
		if p == nil {
			p = map[string]float64{}
		}
		p[f[1]] = v
	}
	prices[region] = p
	return p
}

// archOf follows AWS's naming: a "g" after the generation marks Graviton.
func archOf(family string) string {
	switch {
	case strings.HasPrefix(family, "mac"):
		return ""
	case family == "a1":
		return "arm64"
	}
	i := strings.IndexFunc(family, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return "amd64"
	}
	attrs := strings.TrimLeft(family[i:], "0123456789")
	if strings.Contains(attrs, "g") {
		return "arm64"
	}
	return "amd64"
}

// All returns every instance type of the table, by name.
func All() []Type {
	load.Do(parse)
	return all
}

// Lookup is the instance type of that name, and whether the table has
// it.
func Lookup(name string) (Type, bool) {
	all := All()
	i, ok := slices.BinarySearchFunc(all, name, func(t Type, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return Type{}, false
	}
	return all[i], true
}

// Prices returns the on-demand prices of a region, and whether the table
// has the region.
func Prices(region string) (map[string]float64, bool) {
	p := regionPrices(region)
	return p, p != nil
}

// PricedRegions are the regions the table has prices for, sorted.
func PricedRegions() []string { return slices.Clone(pricedRegions()) }

// pricedRegions reads the table's regions once: every summary of a pool
// outside them names them.
var pricedRegions = sync.OnceValue(func() []string {
	set := map[string]bool{}
	for line := range strings.Lines(pricesTSV) {
		if region, _, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			set[region] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
})

//go:embed data/SOURCE
var sourceFile string

// Source names the release the tables come from ("Karpenter 1.15.2").
func Source() string {
	if m := sourceRelease().FindStringSubmatch(sourceFile); m != nil {
		return "Karpenter " + m[1]
	}
	return "Karpenter's"
}

var sourceRelease = lazyre.New(`karpenter-provider-aws@v([0-9.]+)`)

// PriceSource says where a region's prices come from: "Karpenter
// 1.15.2's on-demand prices for us-east-1, in USD, generated 2026-07-20", or ""
// when the table does not price the region.
func PriceSource(region string) string {
	if _, ok := Prices(region); !ok {
		return ""
	}
	out := fmt.Sprintf("%s's on-demand prices for %s, in %s", Source(), region, Currency(region))
	for line := range strings.Lines(sourceFile) {
		if m := pricesDated().FindStringSubmatch(line); m != nil && m[1] == region {
			out += ", generated " + m[2]
		}
	}
	return out
}

// Currency is the ISO 4217 code of a region's prices as the tables (and
// the AWS Price List API they come from) give them: yuan in the China
// regions, dollars elsewhere.
func Currency(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "CNY"
	}
	return "USD"
}

// PerHour writes a price an hour in its currency: "$0.3840/h" in
// dollars, "CNY 1.0130/h" in another currency, by its code.
func PerHour(amount float64, currency string) string {
	if currency == "USD" || currency == "" {
		return fmt.Sprintf("$%.4f/h", amount)
	}
	return fmt.Sprintf("%s %.4f/h", currency, amount)
}

var pricesDated = lazyre.New(`^prices of (\S+) generated at ([0-9-]+)T`)

// MixText writes an instance mix: "2 c5.xlarge spot, 1 m5.large on-demand".
func MixText(mix map[string]int) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(mix)) {
		s = append(s, fmt.Sprintf("%d %s", mix[k], k))
	}
	return strings.Join(s, ", ")
}
