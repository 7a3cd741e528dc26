package doctor

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/karpgen/karpgen/internal/doctor/live"
)

// Objects reads the capture's Kubernetes objects that Karpenter's
// disruption controller decides on: nodes, NodeClaims, pods,
// PodDisruptionBudgets and DaemonSets, each list's items as kubectl
// printed them, and the time they were read at. The nodes, NodeClaims
// and pods must be there; a capture without budgets or workloads has
// none of them. at, when not zero, is the time to decide at instead.
func Objects(s *State, at time.Time) (*live.Objects, error) {
	out := &live.Objects{}
	lists := []struct {
		file     string
		items    *[]json.RawMessage
		required bool
	}{
		{live.FileNodes, &out.Nodes, true},
		{live.FileNodeClaims, &out.NodeClaims, true},
		{live.FilePods, &out.Pods, true},
		{live.FilePDBs, &out.PDBs, false},
		{live.FileWorkloads, &out.DaemonSets, false},
	}
	for _, l := range lists {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		found, failed, err := s.read(l.file, &list)
		switch {
		case err != nil:
			return nil, err
		case failed != nil:
			return nil, &StateError{File: l.file, Reason: fmt.Sprintf("the capture could not read it (%s): run the capture script again", strconv.Quote(failed.Code))}
		case !found && l.required:
			return nil, &StateError{File: l.file, Reason: "not in the capture: capture again with this karpgen's script (karpgen doctor ENV --capture-script)"}
		}
		for i, it := range list.Items {
			var probe map[string]json.RawMessage
			if err := json.Unmarshal(it, &probe); err != nil {
				return nil, &StateError{File: l.file, Path: fmt.Sprintf("items[%d]", i), Reason: "expected an object"}
			}
		}
		*l.items = list.Items
	}
	if !at.IsZero() {
		out.Time = at.UTC()
		return out, nil
	}
	var t struct {
		Time string `json:"time"`
	}
	found, failed, err := s.read(live.FileCaptureTime, &t)
	switch {
	case err != nil:
		return nil, err
	case !found || failed != nil:
		return nil, &StateError{File: live.FileCaptureTime, Reason: "not in the capture, so the time its nodes were read at is unknown: name one with --at (RFC 3339)"}
	}
	if out.Time, err = time.Parse(time.RFC3339, t.Time); err != nil {
		return nil, &StateError{File: live.FileCaptureTime, Path: "time", Reason: fmt.Sprintf("%s is not an RFC 3339 time", strconv.Quote(t.Time))}
	}
	out.Time = out.Time.UTC()
	return out, nil
}
