package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/util/boundyaml"
)

// Limits on what --workloads reads.
const (
	maxWorkloadFile  = 64 << 20
	maxWorkloadFiles = 10000
)

// workloadKinds are the kinds whose pods the simulation places.
var workloadKinds = []string{"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob", "Pod"}

// ReadWorkloads reads the workloads of files and folders (every .yaml,
// .yml and .json below a folder; a folder with a kustomization.yaml is
// its kustomize build instead): each document of a workload kind, and
// each such item of a List (as `kubectl get -o json` and doctor's
// capture write them). Other kinds are skipped.
func ReadWorkloads(paths []string) ([]Workload, error) {
	var files, built []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		// A folder with a kustomization is its kustomize build.
		if output.IsKustomization(p) {
			built = append(built, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch ext := filepath.Ext(path); {
			case d.IsDir() || d.Type()&fs.ModeSymlink != 0:
			case ext == ".yaml" || ext == ".yml" || ext == ".json":
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
	for _, f := range files {
		data, err := readBounded(f)
		if err != nil {
			return nil, err
		}
		ws, err := parse(filepath.ToSlash(f), data)
		if err != nil {
			return nil, err
		}
		out = append(out, ws...)
	}
	for _, dir := range built {
		data, err := output.BuildFolder(dir)
		if err != nil {
			return nil, err
		}
		// Lines are those of the build's output, named after the folder.
		ws, err := parse(filepath.ToSlash(dir)+" (kustomize build)", data)
		if err != nil {
			return nil, err
		}
		out = append(out, ws...)
	}
	return out, nil
}

func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkloadFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxWorkloadFile {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxWorkloadFile>>20)
	}
	return data, nil
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
			if k == nil || !slices.Contains(workloadKinds, k.Value) {
				continue
			}
			text, err := yaml.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, it.Line, err)
			}
			out = append(out, Workload{File: file, Line: it.Line, YAML: string(text)})
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
