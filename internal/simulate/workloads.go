package simulate

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/util/boundyaml"
	"github.com/karpgen/karpgen/internal/util/escape"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

// Limits on what --workloads reads: a file, the files, and all their
// bytes (what karpgen-simulate reads of a request is 256 MiB).
const (
	maxWorkloadFile  = 64 << 20
	maxWorkloadFiles = 10000
	maxWorkloadBytes = 192 << 20
)

// workloadKinds are the kinds whose pods the simulation places, and
// volumeKinds those that say where their volumes are.
var (
	workloadKinds = []string{"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob", "Pod"}
	volumeKinds   = []string{"PersistentVolume", "PersistentVolumeClaim", "StorageClass"}
)

// IsVolume says whether a document read is a volume's, not a workload.
func IsVolume(w Workload) bool { return slices.Contains(volumeKinds, w.Kind) }

// Kustomize builds a folder with kustomize when it holds a
// kustomization (found), as output.BuildWorkloads does. It is given to
// ReadWorkloads rather than called from here, so that what imports the
// simulation does not link kustomize.
type Kustomize func(dir string) (stream []byte, found bool, err error)

// ReadWorkloads reads the workloads of files and folders (every .yaml,
// .yml and .json below a folder; a folder with a kustomization.yaml is
// its build by kustomize instead, read after the files): each document
// of a workload or volume kind (see IsVolume), and each such item of a
// List (as `kubectl get -o json` and doctor's capture write them). Other
// kinds are skipped. Only regular files are read (a named pipe would
// block for ever, a device never end): one named is an error, one in a
// folder too, and a symbolic link in a folder is skipped. Reading ends
// with ErrTimeout when ctx does.
func ReadWorkloads(ctx context.Context, paths []string, kustomize Kustomize) ([]Workload, error) {
	var files []string
	// built are the folders built by kustomize, read after the files.
	type build struct {
		dir    string
		stream []byte
	}
	var built []build
	builtBytes := 0
	// shown is the name a file is reported by: as the user named it,
	// when a link they named was followed.
	shown := map[string]string{}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if !info.Mode().IsRegular() {
				return nil, fmt.Errorf("%s is %s, not a file of workloads", escape.Terminal(p), safefs.Kind(info.Mode()))
			}
			// Named by the user: a link is followed once, here.
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil, err
			}
			files = append(files, real)
			shown[real] = p
			continue
		}
		// A folder with a kustomization is its kustomize build.
		if ctx.Err() != nil {
			return nil, ErrTimeout
		}
		stream, found, err := kustomize(p)
		if err != nil {
			return nil, err
		}
		if found {
			// Bounded as they come, not only once the files are read.
			if builtBytes += len(stream); builtBytes > maxWorkloadBytes {
				return nil, fmt.Errorf("the workloads are larger than %d MiB in all (at %s)", maxWorkloadBytes>>20, escape.Terminal(p))
			}
			built = append(built, build{p, stream})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch ext := filepath.Ext(path); {
			case d.IsDir() || d.Type()&fs.ModeSymlink != 0:
			case ext != ".yaml" && ext != ".yml" && ext != ".json":
			case !d.Type().IsRegular():
				return fmt.Errorf("%s is %s, not a file of workloads", escape.Terminal(path), safefs.Kind(d.Type()))
			default:
				files = append(files, path)
			}
			if len(files) > maxWorkloadFiles {
				return fmt.Errorf("more than %d files", maxWorkloadFiles)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	var out []Workload
	total := 0
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ErrTimeout
		}
		data, err := safefs.ReadFile(f, maxWorkloadFile)
		if err != nil {
			return nil, err
		}
		if total += len(data); total > maxWorkloadBytes {
			return nil, fmt.Errorf("the workloads are larger than %d MiB in all (at %s)", maxWorkloadBytes>>20, escape.Terminal(f))
		}
		ws, err := parse(filepath.ToSlash(cmp.Or(shown[f], f)), data)
		if err != nil {
			return nil, err
		}
		out = append(out, ws...)
	}
	for _, b := range built {
		// Lines are those of the build's output, named after the folder.
		if total += len(b.stream); total > maxWorkloadBytes {
			return nil, fmt.Errorf("the workloads are larger than %d MiB in all (at %s)", maxWorkloadBytes>>20, escape.Terminal(b.dir))
		}
		ws, err := parse(filepath.ToSlash(b.dir)+" (kustomize build)", b.stream)
		if err != nil {
			return nil, err
		}
		out = append(out, ws...)
	}
	if ctx.Err() != nil {
		return nil, ErrTimeout
	}
	return out, nil
}

// parse reads the workloads of one YAML stream.
func parse(file string, data []byte) ([]Workload, error) {
	if err := boundyaml.Check(file, data); err != nil {
		return nil, err
	}
	var out []Workload
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		kind := field(root, "kind")
		if kind == nil {
			continue
		}
		items := []*yaml.Node{root}
		if kind.Value == "List" || strings.HasSuffix(kind.Value, "List") {
			items = nil
			if l := field(root, "items"); l != nil && l.Kind == yaml.SequenceNode {
				items = l.Content
			}
		}
		for _, it := range items {
			k := field(it, "kind")
			if k == nil || !slices.Contains(workloadKinds, k.Value) && !slices.Contains(volumeKinds, k.Value) {
				continue
			}
			text, err := yaml.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, it.Line, err)
			}
			out = append(out, Workload{File: file, Line: it.Line, Kind: k.Value, YAML: string(text)})
		}
	}
}

// field is the value of key k of a mapping node, or nil.
func field(n *yaml.Node, k string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}
