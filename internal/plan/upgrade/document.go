package upgrade

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/karpgen/karpgen/generators"
	"github.com/karpgen/karpgen/internal/doctor/live"
	"github.com/karpgen/karpgen/internal/model"
)

// Versions are the plan's hops, from the running version to the target.
func (p *Plan) Versions() []string {
	out := make([]string, len(p.versions))
	for i, v := range p.versions {
		out[i] = v.String()
	}
	return out
}

// Artifacts are what --write puts in out/<env>/upgrade/<to>/ beside the
// plan itself (UPGRADE.md and RecordFile, which the printer writes): the
// transition policies (and, from v1alpha5, the v1beta1 policies), and the
// target's Helm values (and those of each hop on the way) and IAM, by
// their paths in that folder.
func (p *Plan) Artifacts() (map[string][]byte, error) {
	target, err := generators.Render(p.envs[len(p.envs)-1])
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for path, data := range target.Files {
		if strings.HasPrefix(path, model.DirIAM) || strings.HasPrefix(path, model.DirHelm) {
			files[path] = data
		}
	}
	enc := generators.NewEncoder()
	for _, cp := range append(p.TransitionPolicies(), p.betaPolicies()...) {
		files[model.IAMFile(cp.File)] = enc.JSON(cp.Document)
	}
	for i, e := range p.envs[1 : len(p.envs)-1] {
		if e == nil {
			continue
		}
		hop, err := generators.Render(e)
		if err != nil {
			return nil, err
		}
		files[model.HelmValuesFor(p.versions[i+1].String())] = hop.Files[model.FileHelmValues]
	}
	return files, nil
}

// RecordFile is the file of a written plan that records it; a render
// makes the plan again from its versions (Replan).
const RecordFile = "plan.json"

// Replan makes a written plan again from its record (files are those of
// its folder), for the environment
// as the profile now is: render writes it again and render --check
// compares it, so a plan in out/ is always what karpgen would write. A
// plan the profile now blocks, or a record that names no versions, is an
// error. A plan written from a capture (upgrade --write --state) is
// made again from the capture render is given (render --state), so that
// the same state checks it.
func Replan(e *model.Env, files map[string][]byte, capture *live.Cluster) (*Plan, error) {
	record, ok := files[RecordFile]
	if !ok {
		return nil, fmt.Errorf("no %s records the plan", RecordFile)
	}
	var r struct {
		Env          string `json:"env"`
		From         string `json:"from"`
		To           string `json:"to"`
		KubernetesTo string `json:"kubernetesTo"`
	}
	if err := json.Unmarshal(record, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", RecordFile, err)
	}
	if r.Env != e.Name || r.From == "" || r.To == "" {
		return nil, fmt.Errorf("%s does not record a plan of %s (env, from and to)", RecordFile, e.Name)
	}
	p, err := New(e, Options{From: r.From, To: r.To, KubernetesTo: r.KubernetesTo, Live: capture})
	if err != nil {
		return nil, err
	}
	if p.Blocked() {
		return nil, fmt.Errorf("the plan from %s to %s has %d blocker(s) now: see karpgen upgrade %s --from %s --to %s", r.From, r.To, len(p.Blockers), e.Name, r.From, r.To)
	}
	return p, nil
}

// Command is the karpgen upgrade command of this plan, with extra flags.
func (p *Plan) Command(extra ...string) []string {
	c := []string{"karpgen", "upgrade", p.Env, "--from", p.From, "--to", p.To}
	if p.KubernetesTo != "" {
		c = append(c, "--kubernetes-to", p.KubernetesTo)
	}
	return append(c, extra...)
}
