package action

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/doctor"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/iam/cfnpreview"
	"github.com/karpgen/karpgen/internal/importer"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/model"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/profile/form"
	"github.com/karpgen/karpgen/internal/util/boundyaml"
	"github.com/karpgen/karpgen/internal/util/escape"
)

// Import turns an install's manifests and Helm values into a profile and
// closes the loop before anything is written: the profile must vet as
// it is (karpgen import). The importer's own want of an option is an
// *importer.NeedError.
type Import struct {
	Options importer.Options
	// Files are the manifests to import, "-" for Stdin; ValuesFile is
	// the release's Helm values, "" for none.
	Files      []string
	ValuesFile string
	Stdin      io.Reader
	// Out is the file the profile will be written to, "" for standard
	// output: findings name its lines.
	Out string
	// Draft keeps a profile vet refuses, with vet's findings as comments
	// at its end.
	Draft bool
	// State is a capture of the cluster (karpgen doctor
	// --capture-script), "" for none: the import adopts what it shows to
	// exist.
	State string
}

// Imported is the profile made, with what the import changed or dropped
// and, when vet refuses it, vet's findings located at the input lines
// their fields came from.
type Imported struct {
	Profile  []byte
	Findings []diag.Finding
	// Refused: vet refuses the profile; it is a draft when Draft was
	// given, and must not be written otherwise.
	Refused bool
}

// NeedsError says which options an import needs, with why: Option is
// the field of importer.Options, which the command line names by its
// flag.
type NeedsError struct{ Needs []Need }

// Need is one option an import needs.
type Need struct{ Option, Why string }

func (e *NeedsError) Error() string {
	var parts []string
	for _, n := range e.Needs {
		parts = append(parts, n.Option+" ("+n.Why+")")
	}
	return "import: give " + strings.Join(parts, ", ")
}

// Run imports.
func (im *Import) Run() (*Imported, error) {
	if len(im.Files) == 0 {
		return nil, usage("import: name the manifest files to import (- reads standard input)")
	}
	if msg := lint.CheckEnvName(im.Options.Env); msg != "" {
		return nil, usage("import: --env: %s", msg)
	}
	var inputs []importer.Input
	for _, f := range im.Files {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(io.LimitReader(im.Stdin, boundyaml.MaxBytes+1))
			f = "<stdin>"
		} else {
			data, err = readBounded(f)
		}
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		inputs = append(inputs, importer.Input{Name: f, Data: data})
	}
	var values *importer.Input
	if im.ValuesFile != "" {
		data, err := readBounded(im.ValuesFile)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		values = &importer.Input{Name: im.ValuesFile, Data: data}
	}
	opts := im.Options
	if im.State != "" {
		captured, err := captured(im.State)
		if err != nil {
			return nil, err
		}
		opts.Captured = captured
	}
	res, err := importer.Import(inputs, values, opts)
	var need *importer.NeedError
	if errors.As(err, &need) {
		out := &NeedsError{}
		for _, n := range need.Needs {
			out.Needs = append(out.Needs, Need{n.Option, n.Why})
		}
		return nil, out
	}
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	name := "imported.cue"
	if im.Out != "" {
		name = filepath.Base(im.Out)
	}
	dir := filepath.Dir(name)
	if im.Out != "" {
		dir = filepath.Dir(im.Out)
	}
	checked, err := Check(Options{Folder: &load.Folder{FS: fstest.MapFS{name: {Data: res.CUE}}, Path: dir}})
	if err != nil {
		return nil, fmt.Errorf("import: checking the profile: %w", err)
	}
	out := &Imported{Profile: res.CUE, Findings: res.Findings, Refused: diag.HasErrors(checked.Findings)}
	if !out.Refused {
		return out, nil
	}
	// Each at the input line its field came from, the profile's line
	// second.
	located := make([]diag.Finding, len(checked.Findings))
	for i, f := range checked.Findings {
		located[i] = res.Locate(f)
		if !im.Draft && im.Out != "" {
			located[i] = unwritten(located[i], filepath.ToSlash(im.Out))
		}
	}
	out.Findings = append(out.Findings, diag.Sort(located)...)
	if im.Draft {
		// At the end, so that the findings' lines are the file's.
		out.Profile = append(slices.Clone(out.Profile), draftNote(checked.Findings)...)
	}
	return out, nil
}

// unwritten keeps a finding from citing a line of the profile import
// did not write: such a position leaves its "see" lines, and a finding
// at one says the line in its message instead.
func unwritten(f diag.Finding, profile string) diag.Finding {
	f.Also = slices.DeleteFunc(slices.Clone(f.Also), func(p diag.Pos) bool { return filepath.ToSlash(p.File) == profile })
	if filepath.ToSlash(f.Pos.File) == profile {
		f.Message += fmt.Sprintf(" (line %d of the profile, which was not written)", f.Pos.Line)
		f.Pos = diag.Pos{}
	}
	return f
}

// draftNote is what vet refuses of a draft profile, as comments: one line
// each, whatever the finding's text holds.
func draftNote(findings []diag.Finding) []byte {
	var b strings.Builder
	b.WriteString("\n// Draft: karpgen vet refuses this profile as it is. Fix what these name, then remove this note:\n")
	for _, f := range findings {
		if f.Severity != diag.Error {
			continue
		}
		line := fmt.Sprintf("%s: %s [%s]", f.Pos, f.Message, f.Rule)
		if f.Hint != "" {
			line += " (" + f.Hint + ")"
		}
		b.WriteString("//   - " + escape.Comment(line) + "\n")
	}
	return []byte(b.String())
}

// readBounded reads a file to import, at most one byte past the size an
// import takes (the importer refuses what is larger).
func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, boundyaml.MaxBytes+1))
}

// WriteProfile writes an imported profile to a new file, never over one;
// it returns the path written.
func WriteProfile(path string, profile []byte) (string, error) {
	written, err := output.WriteNew(filepath.Dir(path), map[string][]byte{filepath.Base(path): profile})
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	return written[0], nil
}

// captured is what the capture in dir says of its cluster, as the
// importer takes it: each fact with the file it came from.
func captured(dir string) (*importer.Captured, error) {
	st, closeFn, err := openState("import", dir)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	c, err := doctor.Identity(st)
	if err != nil {
		return nil, stateErr("import", dir, err)
	}
	out := &importer.Captured{Cluster: c.Name, ClusterARN: c.ARN, Kubernetes: c.Kubernetes, File: path.Join(filepath.ToSlash(dir), live.FileEKSCluster),
		ServiceAccountRole: c.ServiceAccountRole, ServiceAccountFile: path.Join(filepath.ToSlash(dir), live.FileKarpenterSA), OIDCIssuer: c.OIDCIssuer}
	for _, name := range slices.Sorted(maps.Keys(c.NodeGroups)) {
		g := c.NodeGroups[name]
		ng := importer.CapturedNodeGroup{Name: name, File: path.Join(filepath.ToSlash(dir), g.File),
			Labels: g.Labels, InstanceTypes: g.InstanceTypes, Desired: g.Desired}
		for _, t := range g.Taints {
			ng.Taints = append(ng.Taints, form.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		out.NodeGroups = append(out.NodeGroups, ng)
	}
	if gs := c.Stacks[model.GettingStartedStack(c.Name)]; gs != nil {
		_, resources, _ := doctor.StackFiles(gs.Name)
		out.GettingStarted = &importer.CapturedStack{Name: gs.Name, File: path.Join(filepath.ToSlash(dir), resources)}
		for _, r := range gs.Resources {
			switch {
			case r.Logical == "KarpenterInterruptionQueue" && r.Type == "AWS::SQS::Queue":
				out.GettingStarted.Queue = cfnpreview.PhysicalName(r.Type, r.Physical)
			case r.Logical == "KarpenterNodeRole" && r.Type == "AWS::IAM::Role":
				out.GettingStarted.NodeRole = r.Physical
			}
		}
	}
	for _, a := range c.Associations {
		out.Associations = append(out.Associations, importer.CapturedAssociation{ID: a.ID, Namespace: a.Namespace, ServiceAccount: a.ServiceAccount, RoleARN: a.RoleARN,
			File: path.Join(filepath.ToSlash(dir), live.PerItem(live.PrefixAssociation, a.ID))})
	}
	return out, nil
}
