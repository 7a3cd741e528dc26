package action_test

import (
	"io"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/karpgen/karpgen/internal/action"
	"github.com/karpgen/karpgen/internal/bench/fleet"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/output"
)

func fleetDir(b *testing.B, n int) string {
	dir := filepath.Join(b.TempDir(), "profiles")
	if err := fleet.Write(dir, n); err != nil {
		b.Fatal(err)
	}
	return dir
}

func check(b *testing.B, dir string, n int) *action.Result {
	res, err := action.Check(action.Options{Dir: dir})
	if err != nil || len(res.Envs) != n {
		b.Fatalf("check: %v, %d environments", err, len(res.Envs))
	}
	return res
}

func benchRender(b *testing.B, n int) {
	dir := fleetDir(b, n)
	b.ReportAllocs()
	for b.Loop() {
		res := check(b, dir, n)
		var sink countFiles
		if err := res.Render(&sink); err != nil || sink.files.Load() < int64(14*n) {
			b.Fatalf("render: %v, %d files", err, sink.files.Load())
		}
	}
}

// countFiles is a sink that only counts.
type countFiles struct{ files atomic.Int64 }

func (c *countFiles) Put(b *model.Bundle) error      { c.files.Add(int64(len(b.Files))); return nil }
func (c *countFiles) Finish(map[string][]byte) error { return nil }

// BenchmarkLoadAndVet1 loads, validates and lints one environment.
func BenchmarkLoadAndVet1(b *testing.B) {
	dir := fleetDir(b, 1)
	b.ReportAllocs()
	for b.Loop() {
		check(b, dir, 1)
	}
}

// BenchmarkRender1 is a whole render of one environment, in memory.
func BenchmarkRender1(b *testing.B) { benchRender(b, 1) }

// BenchmarkRender1000 is a whole render of a fleet, in memory.
func BenchmarkRender1000(b *testing.B) { benchRender(b, 1000) }

// BenchmarkWrite1 writes one bundle into a fresh out/.
func BenchmarkWrite1(b *testing.B) {
	var bundles action.Collect
	if err := check(b, fleetDir(b, 1), 1).Render(&bundles); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		disk, err := output.NewDisk(filepath.Join(b.TempDir(), "out"), output.DiskOptions{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if err := disk.Put(bundles.Bundles["env-0000"]); err != nil {
			b.Fatal(err)
		}
		if err := disk.Finish(nil); err != nil {
			b.Fatal(err)
		}
		disk.Close()
	}
}
