package action

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpgen/karpgen/internal/diag"
	"github.com/karpgen/karpgen/internal/facts"
	"github.com/karpgen/karpgen/internal/lint"
	"github.com/karpgen/karpgen/internal/load"
	"github.com/karpgen/karpgen/internal/output"
	"github.com/karpgen/karpgen/internal/templates"
	"github.com/karpgen/karpgen/internal/util/lazyre"
	"github.com/karpgen/karpgen/internal/util/safefs"
)

// Init writes the profiles of a template into a folder (karpgen init).
type Init struct {
	Template string
	Dir      string
	Params   templates.Params
}

// NewInit is an init of the newest Karpenter karpgen knows, on the
// newest Kubernetes it confirms.
func NewInit() *Init {
	return &Init{Params: templates.Params{
		KarpenterVersion:  strings.TrimPrefix(facts.Newest().Reference, "v"),
		KubernetesVersion: facts.ConfirmedKubernetes(),
	}}
}

// TemplateNames are the templates init writes.
func TemplateNames() []string { return templates.Names() }

// accountRE is an AWS account ID.
var accountRE = lazyre.New(`^[0-9]{12}$`)

// Run writes the template's files, none over an existing one; it returns
// those written, also when a later one fails.
func (in *Init) Run() ([]string, error) {
	p := in.Params
	switch {
	case !accountRE().MatchString(p.Account):
		return nil, usage("init: --account %q is not an AWS account ID (12 digits)", p.Account)
	case facts.Regions[p.Region] == "":
		hint := ""
		if s := diag.Closest(p.Region, slices.Sorted(maps.Keys(facts.Regions))); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, usage("init: --region %q is not an AWS region karpgen knows%s", p.Region, hint)
	case !lint.ValidClusterName(p.Name + "-staging"):
		return nil, usage("init: --name %q does not make valid EKS cluster names (%s-staging): use letters, digits, '-' and '_', starting with a letter or digit", p.Name, p.Name)
	}
	files, err := templates.Render(in.Template, p)
	if err != nil {
		return nil, usage("init: %v", err)
	}
	if err := notDefinedYet(in.Dir, files); err != nil {
		return nil, err
	}
	written, err := output.WriteNew(in.Dir, files)
	if err != nil {
		return written, fmt.Errorf("init: %w", err)
	}
	return written, nil
}

// notDefinedYet refuses templates that define an environment the
// profiles folder defines already (the package would hold two
// definitions of it, and vet would fail on a conflict of the two), or a
// top-level field its package declares already, such as _base: CUE would
// unify the two, and the environments built on the folder's _base would
// gain the template's pools, node groups and taints on the next render.
func notDefinedYet(dir string, files map[string][]byte) error {
	have, fields := map[string]diag.Pos{}, map[string]diag.Pos{}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("init: %w", err)
	}
	for _, e := range entries {
		if _, ours := files[e.Name()]; ours || !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".cue" {
			continue // a file of the template's own name is refused whole by WriteNew
		}
		path := filepath.Join(dir, e.Name())
		src, err := safefs.ReadFile(path, 64<<20)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		envs, err := load.DefinedEnvironments(filepath.ToSlash(path), src)
		if err != nil {
			continue // vet reports a file that does not parse
		}
		for name, pos := range envs {
			if _, seen := have[name]; !seen {
				have[name] = pos
			}
		}
		top, _ := load.TopLevelFields(filepath.ToSlash(path), src)
		for name, pos := range top {
			if _, seen := fields[name]; !seen {
				fields[name] = pos
			}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		envs, err := load.DefinedEnvironments(file, files[file])
		if err != nil {
			return err
		}
		top, err := load.TopLevelFields(file, files[file])
		if err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(top)) {
			if pos, taken := fields[name]; taken {
				return fmt.Errorf("init: %s is declared already, at %s; the template declares it too, and CUE would unify the two, changing every environment that uses it: nothing was written (init is for a folder whose package holds none of the template's fields: --dir another folder)", name, pos)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(envs)) {
			if pos, taken := have[name]; taken {
				return fmt.Errorf("init: environment %s is defined already, at %s; the template would define it again: nothing was written (init is for a folder without these environments; add one by hand, or --dir another folder)", name, pos)
			}
		}
	}
	return nil
}
