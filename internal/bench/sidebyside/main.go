// Command sidebyside times karpgen against the tools a team would run
// instead, in one run on one machine, interleaved, and prints medians and
// ratios: `karpgen render` of one environment against `helm template` of
// the Karpenter chart with the generated values and against a bare
// `cue export` of the same profile; a fleet of environments (wall time
// and peak memory); and `karpgen build` of one environment, alone and in
// the fleet's package. `make bench` runs it.
//
// It then times fleets of growing size (-scale) against `cue export` of
// the same package with karpgen's schema.
//
//	sidebyside -bin bin -reference reference/karpenter [-rounds 15] [-fleet 1000] [-scale 1000,2000,4000,10000] [-json docs/bench.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/karpgen/karpgen/internal/bench/benchdoc"
	"github.com/karpgen/karpgen/internal/bench/fleet"
)

func main() {
	bin := flag.String("bin", "bin", "folder with the karpgen, helm and cue binaries")
	ref := flag.String("reference", "reference/karpenter", "upstream reference data (for the chart)")
	rounds := flag.Int("rounds", 15, "timed rounds of each single-environment command")
	fleetSize := flag.Int("fleet", 1000, "environments in the fleet")
	jsonOut := flag.String("json", "", "also write the results to this file (docs/bench.json: every figure the docs quote)")
	scaleSizes := flag.String("scale", "1000,2000,4000,10000", "fleet sizes timed against cue export with the schema (none: \"\")")
	flag.Parse()
	var sizes []int
	for _, f := range strings.Split(*scaleSizes, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err == nil && n > 0 {
			sizes = append(sizes, n)
		}
	}
	if err := run(*bin, *ref, *rounds, *fleetSize, sizes, *jsonOut); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

type sample struct {
	wall   time.Duration
	maxRSS int64 // KiB
}

// timeCmd runs a command and returns its wall time and peak memory.
func timeCmd(dir string, name string, args ...string) (sample, error) {
	return timeExit(dir, 0, name, args...)
}

// timeExit is timeCmd for a command whose success is exit code want
// (karpgen diff exits 1 when something changes).
func timeExit(dir string, want int, name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = nil, out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if code := cmd.ProcessState.ExitCode(); err != nil && code != want || err == nil && want != 0 {
		return sample{}, fmt.Errorf("%s %s: exit %d, want %d: %v\n%s", name, strings.Join(args, " "), code, want, err, out)
	}
	return sample{wall, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss}, nil
}

func median(s []sample) sample {
	walls := make([]time.Duration, len(s))
	rss := make([]int64, len(s))
	for i, x := range s {
		walls[i], rss[i] = x.wall, x.maxRSS
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return sample{walls[len(walls)/2], rss[len(rss)/2]}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func run(bin, ref string, rounds, fleetSize int, sizes []int, jsonOut string) error {
	bin, _ = filepath.Abs(bin)
	ref, _ = filepath.Abs(ref)
	karpgen, helm, cue := filepath.Join(bin, "karpgen"), filepath.Join(bin, "helm"), filepath.Join(bin, "cue")
	work, err := os.MkdirTemp("", "karpgen-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// One environment: the fleet profile with a single environment.
	one := filepath.Join(work, "one")
	if err := fleet.Write(filepath.Join(one, "profiles"), 1); err != nil {
		return err
	}
	if _, err := timeCmd(one, karpgen, "render", "--out", "out"); err != nil {
		return err
	}
	values := filepath.Join(one, "out", "env-0000", "helm", "karpenter-values.yaml")
	// helm and cue write to a pipe; karpgen's single render writes its
	// files into memory too when the machine has a tmpfs, so that the disk
	// is in none of the three.
	scratch := filepath.Join(one, "out-bench")
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "karpgen-bench-one-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(shm)
		scratch = filepath.Join(shm, "out")
	}
	// The same environment with karpgen's schema in the package: what
	// CUE itself takes to evaluate what every render evaluates.
	withSchema := filepath.Join(work, "one-schema")
	if err := fleet.Write(filepath.Join(withSchema, "profiles"), 1); err != nil {
		return err
	}
	if err := writeSchema(filepath.Join(withSchema, "profiles")); err != nil {
		return err
	}
	many := filepath.Join(work, "fleet")
	if err := fleet.Write(filepath.Join(many, "profiles"), fleetSize); err != nil {
		return err
	}
	// The fleet's base before a change to the shared base: a new AMI
	// release for every environment, which karpgen diff reports as drift.
	before := filepath.Join(work, "fleet-before")
	if err := fleet.Write(filepath.Join(before, "profiles"), fleetSize); err != nil {
		return err
	}
	if err := fleet.ChangeBase(filepath.Join(before, "profiles")); err != nil {
		return err
	}
	chart := filepath.Join(ref, "v1.2.8", "chart")
	commands := []struct {
		id, name string
		dir      string
		args     []string
	}{
		{"render-one", "karpgen render (1 env)", one, []string{karpgen, "render", "--out", scratch}},
		{"helm-template", "helm template", one, []string{helm, "template", "karpenter", chart, "--namespace", "karpenter", "-f", values}},
		{"cue-export", "cue export (no schema)", one, []string{cue, "export", "./profiles", "-e", "environments"}},
		{"build-one", "karpgen build (1 env)", one, []string{karpgen, "build", "env-0000"}},
		{"build-in-fleet", fmt.Sprintf("karpgen build (1 of %d)", fleetSize), many, []string{karpgen, "build", "env-0000"}},
		{"cue-export-schema", "cue export (with the schema)", withSchema, []string{cue, "export", "./profiles", "-e", "environments"}},
	}
	samples := make([][]sample, len(commands))
	for r := 0; r < rounds; r++ {
		for i, c := range commands {
			if c.name == commands[0].name {
				os.RemoveAll(scratch)
			}
			s, err := timeCmd(c.dir, c.args[0], c.args[1:]...)
			if err != nil {
				return err
			}
			samples[i] = append(samples[i], s)
		}
	}
	med := make([]sample, len(commands))
	for i := range commands {
		med[i] = median(samples[i])
	}

	fleetMed, diffMed, err := measureFleet(karpgen, many, before)
	if err != nil {
		return err
	}

	fmt.Printf("machine: %s/%s, %d CPUs; %d interleaved rounds, medians\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), rounds)
	fmt.Printf("%-28s %12s %12s\n", "command", "wall", "peak RSS")
	for i, c := range commands {
		fmt.Printf("%-28s %12s %9d KiB\n", c.name, ms(med[i].wall), med[i].maxRSS)
	}
	for _, where := range []string{"disk", "tmpfs", "unchanged"} {
		if fm, ok := fleetMed[where]; ok {
			fmt.Printf("%-28s %12s %9d KiB\n", fmt.Sprintf("render %d envs (%s)", fleetSize, where), ms(fm.wall), fm.maxRSS)
		}
	}
	fmt.Printf("%-28s %12s %9d KiB\n", fmt.Sprintf("diff %d envs", fleetSize), ms(diffMed.wall), diffMed.maxRSS)
	ratio := func(a, b sample) float64 { return float64(a.wall) / float64(b.wall) }
	if fm, ok := fleetMed["tmpfs"]; ok {
		fmt.Printf("\ndiff / render of the fleet:        %.2fx (target <= 2.00)\n", ratio(diffMed, fm))
	}
	fmt.Printf("karpgen render / helm template:    %.2fx (target <= 0.50)\n", ratio(med[0], med[1]))
	fmt.Printf("karpgen render / cue export with the schema: %.2fx (target <= 1.25)\n", ratio(med[0], med[5]))
	fmt.Printf("  karpgen render / bare cue export: %.2fx; cue export with the schema / without: %.2fx\n", ratio(med[0], med[2]), ratio(med[5], med[2]))
	fmt.Printf("karpgen build median:              %s (target <= 50 ms)\n", ms(med[3].wall))
	fmt.Printf("build in a fleet / build alone:    %.2fx (target <= 1.50)\n", ratio(med[4], med[3]))
	for _, where := range []string{"disk", "tmpfs", "unchanged"} {
		if fm, ok := fleetMed[where]; ok {
			fmt.Printf("fleet of %d (%s): %s wall, %.0f MiB peak (targets <= 3 s, <= 200 MiB)\n", fleetSize, where, ms(fm.wall), float64(fm.maxRSS)/1024)
		}
	}
	var scaleRows []benchdoc.Row
	if len(sizes) > 0 {
		fmt.Println()
		if scaleRows, err = scale(work, karpgen, cue, sizes, 5); err != nil {
			return err
		}
	}
	if jsonOut == "" {
		return nil
	}
	res := benchdoc.Results{Date: time.Now().UTC().Format("2006-01-02"), CPUs: runtime.NumCPU(), Go: runtime.Version(), Rounds: rounds, Fleet: fleetSize}
	for i, c := range commands {
		res.Rows = append(res.Rows, benchdoc.Row{ID: c.id, Name: c.name, WallMS: float64(med[i].wall.Microseconds()) / 1000, RSSKiB: med[i].maxRSS})
	}
	for _, where := range []string{"disk", "tmpfs", "unchanged"} {
		if fm, ok := fleetMed[where]; ok {
			res.Rows = append(res.Rows, benchdoc.Row{ID: "fleet-" + where, Name: fmt.Sprintf("karpgen render, %d envs (%s)", fleetSize, where), WallMS: float64(fm.wall.Microseconds()) / 1000, RSSKiB: fm.maxRSS})
		}
	}
	res.Scale = scaleRows
	res.Rows = append(res.Rows, benchdoc.Row{ID: "fleet-diff", Name: fmt.Sprintf("karpgen diff, %d envs, one shared change", fleetSize), WallMS: float64(diffMed.wall.Microseconds()) / 1000, RSSKiB: diffMed.maxRSS})
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(jsonOut, append(data, '\n'), 0o644)
}

// measureFleet times the fleet of many: rendered into a fresh out/ on
// this disk, into a fresh out/ in memory (tmpfs, when the machine has
// one: karpgen's own cost without the disk's), and once more onto an
// unchanged out/, each the median of 3, by where; and karpgen diff
// against the fleet before a change of its base (before).
func measureFleet(karpgen, many, before string) (map[string]sample, sample, error) {
	outs := map[string]string{"disk": filepath.Join(many, "out")}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "karpgen-bench-")
		if err != nil {
			return nil, sample{}, err
		}
		defer os.RemoveAll(shm)
		outs["tmpfs"] = shm
	}
	fleetMed := map[string]sample{}
	// The diff of the fleet runs after each render in memory, so that the
	// ratio of the two compares the same minutes of a machine whose speed
	// wanders (medians of 3 taken minutes apart differed by 2x).
	var ds []sample
	diff := func() error {
		s, err := timeExit(many, 1, karpgen, "diff", "--base", filepath.Join(before, "profiles"))
		ds = append(ds, s)
		return err
	}
	for _, where := range []string{"disk", "tmpfs", "unchanged"} {
		base, ok := outs[where]
		if where == "unchanged" {
			base, ok = outs["disk"], true
		}
		if !ok {
			continue
		}
		var ss []sample
		for r := 0; r < 3; r++ {
			out := filepath.Join(base, fmt.Sprint(r))
			if where == "unchanged" {
				out = filepath.Join(base, "0")
			}
			s, err := timeCmd(many, karpgen, "render", "--out", out)
			if err != nil {
				return nil, sample{}, err
			}
			ss = append(ss, s)
			if where == "tmpfs" {
				os.RemoveAll(out)
				if err := diff(); err != nil {
					return nil, sample{}, err
				}
			}
		}
		fleetMed[where] = median(ss)
	}
	for len(ds) < 3 { // no tmpfs
		if err := diff(); err != nil {
			return nil, sample{}, err
		}
	}
	return fleetMed, median(ds), nil
}
