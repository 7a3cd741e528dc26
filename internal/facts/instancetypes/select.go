package instancetypes

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/profile"
)

// labelOf reads the labels the table knows of a type.
var labelOf = map[string]func(Type) (string, bool){
	facts.KeyInstanceType: func(t Type) (string, bool) { return t.Name, true },
	facts.KeyFamily:       func(t Type) (string, bool) { return t.Family, true },
	facts.KeySize:         func(t Type) (string, bool) { return t.Size, true },
	facts.KeyCategory:     func(t Type) (string, bool) { return t.Category, t.Category != "" },
	facts.KeyGeneration:   func(t Type) (string, bool) { return strconv.Itoa(t.Generation), t.Category != "" },
	facts.KeyArch:         func(t Type) (string, bool) { return t.Arch, t.Arch != "" },
}

// instanceKeys are the labels that describe an instance type which the
// table cannot answer: a requirement on them is not evaluated.
var instanceKeys = []string{
	facts.KeyCPU, "karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-cpu-manufacturer",
	"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz", "karpenter.k8s.aws/instance-ebs-bandwidth",
	"karpenter.k8s.aws/instance-network-bandwidth", "karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-count",
	"karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-accelerator-manufacturer", "karpenter.k8s.aws/instance-accelerator-count",
	"karpenter.k8s.aws/instance-local-nvme", "karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported", "karpenter.k8s.aws/instance-capability-flex",
}

// Selection is what a pool may launch.
type Selection struct {
	// Types are the types its requirements allow, from the whole table.
	Types []Type
	// Region is the pool's region; Regional says the table has its
	// prices, and InRegion are the Types offered (priced) there.
	Region   string
	Regional bool
	InRegion []Type
	// Unevaluated are the requirement keys the table cannot answer
	// (instance-cpu, instance-memory...): the real set may be smaller.
	Unevaluated []string
	// MinPrice and MaxPrice are the on-demand range of InRegion, per hour.
	MinPrice, MaxPrice float64
}

// selections remembers what Select answered: a fleet's environments share
// their pools' requirements, and the answer depends on nothing else.
var selections sync.Map // key -> Selection

// Select applies a pool's requirements to the table. The Selection is
// shared: callers do not change it.
func Select(np profile.NodePool, region string) Selection {
	reqs := Requirements(np)
	key, err := json.Marshal(struct {
		R []profile.Requirement
		G string
	}{reqs, region})
	if err == nil {
		if s, ok := selections.Load(string(key)); ok {
			return s.(Selection)
		}
	}
	s := selectTypes(reqs, region)
	if err == nil {
		selections.Store(string(key), s)
	}
	return s
}

func selectTypes(reqs []profile.Requirement, region string) Selection {
	s := Selection{Region: region}
	for _, r := range reqs {
		if _, known := labelOf[r.Key]; !known && slices.Contains(instanceKeys, r.Key) && !slices.Contains(s.Unevaluated, r.Key) {
			s.Unevaluated = append(s.Unevaluated, r.Key)
		}
	}
	for _, t := range All() {
		if t.Arch == "" {
			continue // mac families: Karpenter does not launch them
		}
		ok := true
		for _, r := range reqs {
			get, known := labelOf[r.Key]
			if !known {
				continue
			}
			if value, defined := get(t); !matches(r, value, defined) {
				ok = false
				break
			}
		}
		if ok {
			s.Types = append(s.Types, t)
		}
	}
	p, regional := Prices(region)
	s.Regional = regional
	if !regional {
		return s
	}
	for _, t := range s.Types {
		price, offered := p[t.Name]
		if !offered {
			continue
		}
		if len(s.InRegion) == 0 || price < s.MinPrice {
			s.MinPrice = price
		}
		if price > s.MaxPrice {
			s.MaxPrice = price
		}
		s.InRegion = append(s.InRegion, t)
	}
	return s
}

// Matches tells whether labels satisfy every requirement, as a node
// selector does.
func Matches(reqs []profile.Requirement, labels map[string]string) bool {
	for _, r := range reqs {
		v, defined := labels[r.Key]
		if !matches(r, v, defined) {
			return false
		}
	}
	return true
}

// matches applies one requirement to a label value (defined says the
// type has the label), as Kubernetes node selectors do.
func matches(r profile.Requirement, value string, defined bool) bool {
	if !wellFormed(r) {
		return true // vet's value/requirement reports it; it selects nothing here
	}
	switch r.Operator {
	case "In":
		return defined && slices.Contains(r.Values, value)
	case "NotIn":
		return !defined || !slices.Contains(r.Values, value)
	case "Exists":
		return defined
	case "DoesNotExist":
		return !defined
	case "Gt", "Lt", "Gte", "Lte":
		if !defined || len(r.Values) != 1 {
			return false
		}
		v, err1 := strconv.Atoi(value)
		bound, err2 := strconv.Atoi(r.Values[0])
		if err1 != nil || err2 != nil {
			return false
		}
		switch r.Operator {
		case "Gt":
			return v > bound
		case "Lt":
			return v < bound
		case "Gte":
			return v >= bound
		}
		return v <= bound
	}
	return true
}

// Emptying is the first of a pool's requirements after which no type of
// the table is left, and how many the ones before it left; ok is false
// when some type is left at the end.
func Emptying(np profile.NodePool) (r profile.Requirement, before int, ok bool) {
	left := All()
	for _, req := range Requirements(np) {
		get, known := labelOf[req.Key]
		if !known || !wellFormed(req) {
			continue
		}
		var kept []Type
		for _, t := range left {
			if value, defined := get(t); t.Arch != "" && matches(req, value, defined) {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			return req, len(left), true
		}
		left = kept
	}
	return profile.Requirement{}, len(left), false
}

// wellFormed: In and NotIn name values, the comparisons one integer.
func wellFormed(r profile.Requirement) bool {
	switch r.Operator {
	case "In", "NotIn":
		return len(r.Values) > 0
	case "Gt", "Lt", "Gte", "Lte":
		if len(r.Values) != 1 {
			return false
		}
		_, err := strconv.Atoi(r.Values[0])
		return err == nil
	}
	return true
}
