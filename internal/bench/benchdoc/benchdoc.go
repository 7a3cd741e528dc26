// Package benchdoc is the one source of karpgen's performance figures:
// `make bench` writes the side-by-side results to docs/bench.json, and
// every figure the docs quote is generated from that file into marked
// regions (<!-- bench:NAME --> ... <!-- /bench -->) of README.md and
// docs/*.md. TestDocsFollowBenchResults fails when a doc and the file
// disagree, and when README.md or docs/argocd.md quote a figure outside a
// region.
package benchdoc

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
)

// Results are one side-by-side run.
type Results struct {
	Date   string `json:"date"`
	CPUs   int    `json:"cpus"`
	Go     string `json:"go"`
	Rounds int    `json:"rounds"`
	Fleet  int    `json:"fleet"`
	Rows   []Row  `json:"rows"`
	// Scale are fleet renders of growing size beside `cue export` of the
	// same package with the schema (scale-karpgen-N, scale-cue-N), and a
	// build in the largest (scale-build-N).
	Scale []Row `json:"scale,omitempty"`
	// Simulate are simulate's scheduler and Karpenter's own provisioner
	// on the same requests (simulate-ID, upstream-ID), in process.
	Simulate []Row `json:"simulate,omitempty"`
}

// Row is one command's median wall time and peak memory.
type Row struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	WallMS float64 `json:"wallMs"`
	RSSKiB int64   `json:"rssKiB"`
}

// Load reads a results file.
func Load(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

func (r *Results) row(id string) Row {
	for _, x := range r.Rows {
		if x.ID == id {
			return x
		}
	}
	return Row{ID: id, Name: id}
}

// Wall is a wall time as the docs write it.
func Wall(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2f s", ms/1000)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

// MiB is a peak memory as the docs write it.
func MiB(kib int64) string { return fmt.Sprintf("%d MiB", (kib+512)/1024) }

func ratio(a, b Row) string {
	if b.WallMS == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", a.WallMS/b.WallMS)
}

// Regions are the generated parts of the docs, by name.
func (r *Results) Regions() map[string]string {
	one, helm, cue, cueSchema := r.row("render-one"), r.row("helm-template"), r.row("cue-export"), r.row("cue-export-schema")
	build, buildFleet := r.row("build-one"), r.row("build-in-fleet")
	disk, tmpfs, unchanged := r.row("fleet-disk"), r.row("fleet-tmpfs"), r.row("fleet-unchanged")
	diff := r.row("fleet-diff")
	var table strings.Builder
	fmt.Fprintf(&table, "`make bench` of %s: %d CPUs, %s, %d interleaved rounds, medians.\n\n", r.Date, r.CPUs, r.Go, r.Rounds)
	table.WriteString("| command | wall | peak RSS |\n|---|---|---|\n")
	for _, x := range r.Rows {
		fmt.Fprintf(&table, "| %s | %s | %s |\n", x.Name, Wall(x.WallMS), MiB(x.RSSKiB))
	}
	table.WriteString("\n| target | measured |\n|---|---|\n")
	fmt.Fprintf(&table, "| one environment ≤ 0.5× `helm template` | %s |\n", ratio(one, helm))
	fmt.Fprintf(&table, "| one environment ≤ 1.25× `cue export` with karpgen's schema | %s (of a bare `cue export`: %s) |\n", ratio(one, cueSchema), ratio(one, cue))
	fmt.Fprintf(&table, "| `karpgen build` median ≤ 50 ms | %s |\n", Wall(build.WallMS))
	fmt.Fprintf(&table, "| `build` in a package of %d ≤ 1.5× `build` in a package of one | %s |\n", r.Fleet, ratio(buildFleet, build))
	fmt.Fprintf(&table, "| %d environments ≤ 3 s, ≤ 200 MiB (tmpfs) | %s, %s (on disk %s; onto an unchanged out/ %s) |\n",
		r.Fleet, Wall(tmpfs.WallMS), MiB(tmpfs.RSSKiB), Wall(disk.WallMS), Wall(unchanged.WallMS))
	fmt.Fprintf(&table, "| `karpgen diff` of %d environments after one shared change ≤ 2× their render (tmpfs) | %s |\n", r.Fleet, ratio(diff, tmpfs))
	return map[string]string{
		"table":    table.String(),
		"scale":    r.scaleTable(build),
		"simulate": r.simulateTable(),
		"summary": fmt.Sprintf("A render of one environment takes %s, %d environments %s in %s on %d CPUs (into tmpfs); see docs/performance.md.\n",
			Wall(one.WallMS), r.Fleet, Wall(tmpfs.WallMS), MiB(tmpfs.RSSKiB), r.CPUs),
		"build": fmt.Sprintf("A build of one environment takes %s (%s in a package of %d environments), far inside Argo CD's 60 s plugin timeout.\n",
			Wall(build.WallMS), Wall(buildFleet.WallMS), r.Fleet),
	}
}

// scaleTable is the fleet of growing size against cue export.
func (r *Results) scaleTable(buildAlone Row) string {
	find := func(id string) (Row, bool) {
		for _, x := range r.Scale {
			if x.ID == id {
				return x, true
			}
		}
		return Row{}, false
	}
	var b strings.Builder
	if len(r.Scale) == 0 {
		return "No fleet of growing size was timed in this run.\n"
	}
	b.WriteString("| environments | karpgen render | peak RSS | cue export with the schema | peak RSS | ratio | time per environment | time per doubling |\n|---|---|---|---|---|---|---|---|\n")
	var last Row
	largest, lastN := 0, 0
	for _, x := range r.Scale {
		var n int
		if _, err := fmt.Sscanf(x.ID, "scale-karpgen-%d", &n); err != nil {
			continue
		}
		c, _ := find(fmt.Sprintf("scale-cue-%d", n))
		growth := "–"
		if last.ID != "" {
			growth = fmt.Sprintf("%.2f×", PerDoubling(last.WallMS, x.WallMS, lastN, n))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %.2f ms | %s |\n", n, Wall(x.WallMS), MiB(x.RSSKiB), Wall(c.WallMS), MiB(c.RSSKiB), ratio(x, c), x.WallMS/float64(n), growth)
		last, largest, lastN = x, n, n
	}
	if bl, ok := find(fmt.Sprintf("scale-build-%d", largest)); ok {
		how := ""
		if beside, ok := find("scale-build-1"); ok {
			buildAlone, how = beside, ", timed beside it"
		}
		fmt.Fprintf(&b, "\n`karpgen build` of one environment in the package of %d: %s, %s its cost in a package of one (%s%s).\n",
			largest, Wall(bl.WallMS), ratio(bl, buildAlone), Wall(buildAlone.WallMS), how)
	}
	return b.String()
}

// simulateTable is simulate beside Karpenter's provisioner.
func (r *Results) simulateTable() string {
	if len(r.Simulate) == 0 {
		return "simulate was not timed beside Karpenter's provisioner in this run.\n"
	}
	var b strings.Builder
	b.WriteString("| request | simulate | Karpenter's provisioner | ratio (target ≤ 1.2×) |\n|---|---|---|---|\n")
	for _, x := range r.Simulate {
		id, ok := strings.CutPrefix(x.ID, "simulate-")
		if !ok {
			continue
		}
		for _, y := range r.Simulate {
			if y.ID == "upstream-"+id {
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", x.Name, Wall(x.WallMS), Wall(y.WallMS), ratio(x, y))
			}
		}
	}
	return b.String()
}

// PerDoubling is how many times the time grows when the fleet doubles,
// from a fleet of n1 taking t1 to one of n2 taking t2: (t2/t1) raised to
// the number of doublings from n1 to n2 (from 4,000 to 10,000
// environments, 1.32 of them).
func PerDoubling(t1, t2 float64, n1, n2 int) float64 {
	return math.Pow(t2/t1, math.Ln2/math.Log(float64(n2)/float64(n1)))
}

// region is a generated part of a doc.
var region = regexp.MustCompile(`(?s)(<!-- bench:([a-z]+) -->\n)(.*?)(<!-- /bench -->)`)

// Apply returns doc with every region generated from r, and the names
// of the regions it holds.
func Apply(doc string, r *Results) (string, []string, error) {
	regions := r.Regions()
	var names []string
	var err error
	out := region.ReplaceAllStringFunc(doc, func(m string) string {
		parts := region.FindStringSubmatch(m)
		text, ok := regions[parts[2]]
		if !ok {
			err = fmt.Errorf("no generated region %q", parts[2])
			return m
		}
		names = append(names, parts[2])
		return parts[1] + text + parts[4]
	})
	return out, names, err
}

// figure is a time or memory figure written in prose.
var figure = regexp.MustCompile(`\b\d[\d,.]* ?(?:ms|µs|MiB|GiB)\b|\b\d+(?:\.\d+)? s\b`)

// Outside returns the figures doc quotes outside its generated regions.
func Outside(doc string) []string {
	return figure.FindAllString(region.ReplaceAllString(doc, ""), -1)
}
