package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/karpgen/karpgen/hack/internal/gosrc"
)

// dataDir is where the table and its record live, in the repository.
const dataDir = "internal/facts/drift/data"

// record is one release of data/SOURCE: its core and provider trees.
type record struct {
	release string
	sides   map[string]gosrc.Upstream
}

// readRecords reads data/SOURCE, in its order.
func readRecords(text []byte) ([]record, error) {
	var out []record
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 7 || (f[1] != "core" && f[1] != "provider") {
			return nil, fmt.Errorf("SOURCE:%d: want release, side (core or provider), module, version, zip hash, repository, commit", n)
		}
		none := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		if len(out) == 0 || out[len(out)-1].release != f[0] {
			out = append(out, record{release: f[0], sides: map[string]gosrc.Upstream{}})
		}
		out[len(out)-1].sides[f[1]] = gosrc.Upstream{Module: f[2], Version: f[3], Sum: none(f[4]), Repo: f[5], Commit: none(f[6])}
	}
	return out, sc.Err()
}

// committedRows are the table's rows by release and kind.
func committedRows(table []byte) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(string(table), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) == 3 {
			out[f[0]+"\t"+f[1]] = append(out[f[0]+"\t"+f[1]], line)
		}
	}
	return out
}

// reader reads the files of one upstream tree, and says where from.
type reader func(u gosrc.Upstream, paths []string) (fs.FS, string, error)

// readUpstream reads through the module proxy or a checkout.
func readUpstream(u gosrc.Upstream, paths []string) (fs.FS, string, error) {
	return u.Read(paths)
}

// Table derives the table of every release of records: the rows of a
// kind whose side read can read are derived again, the others are kept
// from committed and named in kept. crds holds reference/karpenter.
func Table(records []record, committed []byte, crds fs.FS, read reader) (table []byte, kept []string, err error) {
	old := committedRows(committed)
	var b bytes.Buffer
	b.WriteString(header)
	for _, r := range records {
		for _, k := range kinds {
			u, ok := r.sides[k.side]
			if !ok {
				return nil, nil, fmt.Errorf("SOURCE names no %s tree of %s", k.side, r.release)
			}
			src, _, err := read(u, k.files)
			var lines []string
			switch {
			case err == nil:
				crd, err := fs.Sub(crds, path.Join(r.release, "crds"))
				if err != nil {
					return nil, nil, err
				}
				if lines, err = rows(r.release, k, src, crd); err != nil {
					return nil, nil, fmt.Errorf("%s %s: %w", r.release, k.name, err)
				}
			case errors.Is(err, gosrc.ErrUnavailable):
				lines = old[r.release+"\t"+k.name]
				if len(lines) == 0 {
					return nil, nil, fmt.Errorf("%s %s: %w, and the table has no rows of it", r.release, k.name, err)
				}
				kept = append(kept, fmt.Sprintf("%s %s (%s %s)", r.release, k.name, k.side, u))
			default:
				return nil, nil, err
			}
			for _, l := range lines {
				b.WriteString(l + "\n")
			}
		}
	}
	return b.Bytes(), kept, nil
}

// generate rewrites the table in the repository.
func generate(log io.Writer) error {
	root, err := gosrc.Root()
	if err != nil {
		return err
	}
	source, err := os.ReadFile(filepath.Join(root, dataDir, "SOURCE"))
	if err != nil {
		return err
	}
	records, err := readRecords(source)
	if err != nil {
		return err
	}
	file := filepath.Join(root, dataDir, "table.tsv")
	committed, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	table, kept, err := Table(records, committed, os.DirFS(filepath.Join(root, "reference", "karpenter")), readUpstream)
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(log, "drifttable: kept the committed rows of %d of %d trees, not at hand (no module zip, no checkout under $%s):\n", len(kept), 2*len(records), gosrc.UpstreamEnv)
		for _, k := range kept {
			fmt.Fprintf(log, "  %s\n", k)
		}
	}
	return gosrc.Output(root, dataDir+"/table.tsv", table)
}
