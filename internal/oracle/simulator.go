package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/karpgen/karpgen/internal/model"
)

// Simulate writes the IAM JSON files of a bundle (iam/*.json) to a
// temporary folder and runs the simulator's scenarios of the minor
// ("1.4") against them, for the environment's names; without a queue ARN
// the interruption scenarios are left out. It returns the simulator's
// output and whether every scenario passed.
func Simulate(t TB, files map[string][]byte, n model.Names, minor string) (string, bool) {
	t.Helper()
	return simulate(t, files, n, minor, "")
}

// SimulateOperations runs the simulator on the operations a release's
// controller calls (the operations file of its reference folder): each,
// in a request shaped like the controller's, must be allowed. It returns
// the output, which names every operation refused, and whether all were
// allowed.
func SimulateOperations(t TB, files map[string][]byte, n model.Names, minor, operations string) (string, bool) {
	t.Helper()
	return simulate(t, files, n, minor, operations)
}

func simulate(t TB, files map[string][]byte, n model.Names, minor, operations string) (string, bool) {
	t.Helper()
	sim := Simulator(t)
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed: %v", err)
	}
	dir := t.TempDir()
	for path, data := range files {
		if strings.HasPrefix(path, model.DirIAM) && strings.HasSuffix(path, ".json") {
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := []string{filepath.Join(sim, "run.mjs"), "--policies", dir, "--cluster", n.Cluster, "--region", n.Region,
		"--account", n.Account, "--partition", n.Partition, "--node-role-arn", n.NodeRoleARN,
		"--minor", strings.TrimPrefix(minor, "1.")}
	if n.QueueARN != "" {
		args = append(args, "--queue-arn", n.QueueARN)
	} else {
		args = append(args, "--no-interruption")
	}
	if operations != "" {
		args = append(args, "--operations", operations)
	}
	out, err := exec.Command(node, args...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s\nsimulator: %v", out, err), false
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	if operations != "" {
		return string(out), strings.HasPrefix(last, "operations: ") && strings.Contains(last, " allowed, 0 not allowed")
	}
	return string(out), strings.HasPrefix(last, "iam scenarios: ") && strings.Contains(last, " passed, 0 failed")
}

// Decide runs the simulator's evaluate.mjs on cases (a JSON list, each
// {identity, boundary, scps, rcps, request}) and returns its decision on
// each: Allowed, ExplicitlyDenied, ImplicitlyDenied, or ERROR and why.
func Decide(t TB, cases any) []string {
	t.Helper()
	dir := Simulator(t)
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed: %v", err)
	}
	input, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "evaluate.mjs"))
	cmd.Stdin = bytes.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("simulator: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
