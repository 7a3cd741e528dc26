package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/karpgen/karpgen/internal/bench/benchdoc"
	"github.com/karpgen/karpgen/internal/bench/fleet"
	"github.com/karpgen/karpgen/schema"
)

// scale times a fleet render of each size against `cue export` of the
// same package with karpgen's schema copied in (environments:
// [string]: #Profile, as karpgen unifies each one), interleaved, rounds
// times each, and `karpgen build` of one environment in the largest
// package beside its build in a package of one. The renders go to tmpfs when the machine has one.
func scale(work, karpgen, cue string, sizes []int, rounds int) ([]benchdoc.Row, error) {
	out := filepath.Join(work, "scale-out")
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "karpgen-bench-scale-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(shm)
		out = filepath.Join(shm, "out")
	}
	var rows []benchdoc.Row
	var last sample
	lastN := 0
	for _, n := range sizes {
		dir := filepath.Join(work, fmt.Sprintf("scale-%d", n))
		withSchema := filepath.Join(work, fmt.Sprintf("scale-%d-cue", n))
		for _, d := range []string{dir, withSchema} {
			if err := fleet.Write(filepath.Join(d, "profiles"), n); err != nil {
				return nil, err
			}
		}
		if err := writeSchema(filepath.Join(withSchema, "profiles")); err != nil {
			return nil, err
		}
		var ks, cs []sample
		for r := 0; r < rounds; r++ {
			os.RemoveAll(out)
			k, err := timeCmd(dir, karpgen, "render", "--out", out)
			if err != nil {
				return nil, err
			}
			c, err := timeCmd(withSchema, cue, "export", "./profiles", "-e", "environments")
			if err != nil {
				return nil, err
			}
			ks, cs = append(ks, k), append(cs, c)
		}
		os.RemoveAll(out)
		k, c := median(ks), median(cs)
		fmt.Printf("%6d environments: karpgen render %s (%d MiB), cue export with the schema %s (%d MiB): %.2fx (target <= 1.50)",
			n, ms(k.wall), k.maxRSS/1024, ms(c.wall), c.maxRSS/1024, float64(k.wall)/float64(c.wall))
		perEnv := float64(k.wall.Microseconds()) / 1000 / float64(n)
		fmt.Printf(", %.3f ms per environment", perEnv)
		if lastN > 0 {
			lastPerEnv := float64(last.wall.Microseconds()) / 1000 / float64(lastN)
			fmt.Printf(" (%+.0f%% from %d, target within 10%%), %.2fx per doubling (target <= 2.20)",
				(perEnv/lastPerEnv-1)*100, lastN, benchdoc.PerDoubling(float64(last.wall), float64(k.wall), lastN, n))
		}
		fmt.Println()
		last, lastN = k, n
		rows = append(rows,
			benchdoc.Row{ID: fmt.Sprintf("scale-karpgen-%d", n), Name: fmt.Sprintf("karpgen render, %d envs", n), WallMS: float64(k.wall.Microseconds()) / 1000, RSSKiB: k.maxRSS},
			benchdoc.Row{ID: fmt.Sprintf("scale-cue-%d", n), Name: fmt.Sprintf("cue export with the schema, %d envs", n), WallMS: float64(c.wall.Microseconds()) / 1000, RSSKiB: c.maxRSS})
		if n == sizes[len(sizes)-1] {
			// Build in this package and in a package of one, interleaved,
			// so that the machine's pace changes both alike.
			alone := filepath.Join(work, "scale-1")
			if err := fleet.Write(filepath.Join(alone, "profiles"), 1); err != nil {
				return nil, err
			}
			var bs, as []sample
			for r := 0; r < rounds*4; r++ {
				b, err := timeCmd(dir, karpgen, "build", "env-0000")
				if err != nil {
					return nil, err
				}
				a, err := timeCmd(alone, karpgen, "build", "env-0000")
				if err != nil {
					return nil, err
				}
				bs, as = append(bs, b), append(as, a)
			}
			b, a := median(bs), median(as)
			fmt.Printf("karpgen build of one environment in the package of %d: %s, %.2fx its cost alone, %s, timed beside it (target <= 1.50)\n",
				n, ms(b.wall), float64(b.wall)/float64(a.wall), ms(a.wall))
			fmt.Printf("peak memory of the render of %d environments: %d MiB (target <= 1024 MiB)\n", n, k.maxRSS/1024)
			rows = append(rows,
				benchdoc.Row{ID: fmt.Sprintf("scale-build-%d", n), Name: fmt.Sprintf("karpgen build (1 of %d)", n), WallMS: float64(b.wall.Microseconds()) / 1000, RSSKiB: b.maxRSS},
				benchdoc.Row{ID: "scale-build-1", Name: "karpgen build (1 of 1, timed beside it)", WallMS: float64(a.wall.Microseconds()) / 1000, RSSKiB: a.maxRSS})
		}
	}
	return rows, nil
}

// writeSchema puts karpgen's schema into a profiles package, for cue
// export to evaluate the environments with it.
func writeSchema(dir string) error {
	src := strings.Replace(string(schema.Source()), "package schema\n", "package profiles\n", 1)
	return os.WriteFile(filepath.Join(dir, "schema.cue"), []byte(src), 0o644)
}
