package doctor_test

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/karpgen/karpgen/internal/doctor"
)

// TestObjects: the disruption view's objects are each list's items as
// captured, decided at the capture's time or the one given; a capture
// without them, or with them broken, is refused naming the file.
func TestObjects(t *testing.T) {
	list := func(items ...string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{"apiVersion": "v1", "kind": "List", "items": [` + strings.Join(items, ", ") + `]}`)}
	}
	full := func() fstest.MapFS {
		return fstest.MapFS{
			"k8s-nodes.json":      list(`{"kind": "Node", "metadata": {"name": "a"}}`),
			"k8s-nodeclaims.json": list(`{"kind": "NodeClaim"}`, `{"kind": "NodeClaim"}`),
			"k8s-pods.json":       list(),
			"k8s-workloads.json":  list(`{"kind": "DaemonSet"}`, `{"kind": "Deployment"}`),
			"capture-time.json":   {Data: []byte(`{"time": "2026-12-07T10:00:00Z"}` + "\n")},
		}
	}
	objs, err := doctor.Objects(doctor.NewState(full(), "state"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := objs.Time.Format(time.RFC3339); got != "2026-12-07T10:00:00Z" {
		t.Errorf("time %s", got)
	}
	if len(objs.Nodes) != 1 || len(objs.NodeClaims) != 2 || len(objs.Pods) != 0 || len(objs.PDBs) != 0 || len(objs.DaemonSets) != 2 {
		t.Errorf("%d nodes, %d claims, %d pods, %d budgets, %d workloads", len(objs.Nodes), len(objs.NodeClaims), len(objs.Pods), len(objs.PDBs), len(objs.DaemonSets))
	}
	if string(objs.Nodes[0]) != `{"kind": "Node", "metadata": {"name": "a"}}` {
		t.Errorf("node as read: %s", objs.Nodes[0])
	}
	at := time.Date(2026, 12, 7, 20, 0, 0, 0, time.FixedZone("KST", 9*3600))
	if objs, err := doctor.Objects(doctor.NewState(full(), "state"), at); err != nil || objs.Time.Format(time.RFC3339) != "2026-12-07T11:00:00Z" {
		t.Errorf("--at: %v %v", objs, err)
	}

	type refusal struct {
		name string
		edit func(fstest.MapFS)
		want string
	}
	refusals := []refusal{
		{"no pods", func(f fstest.MapFS) { delete(f, "k8s-pods.json") },
			"k8s-pods.json: not in the capture: capture again with this karpgen's script (karpgen doctor ENV --capture-script)"},
		{"pods the capture could not read", func(f fstest.MapFS) {
			f["k8s-pods.json"] = &fstest.MapFile{Data: []byte(`{"error": {"code": "Forbidden", "message": "pods is forbidden"}}`)}
		}, `k8s-pods.json: the capture could not read it ("Forbidden"): run the capture script again`},
		{"an item that is no object", func(f fstest.MapFS) { f["k8s-nodes.json"] = list(`{"kind": "Node"}`, `"ip-10-0-0-1"`) },
			"k8s-nodes.json: items[1]: expected an object"},
		{"items of the wrong type", func(f fstest.MapFS) { f["k8s-nodeclaims.json"] = &fstest.MapFile{Data: []byte(`{"items": {}}`)} },
			"k8s-nodeclaims.json: items: expected an array, found an object"},
		{"no time", func(f fstest.MapFS) { delete(f, "capture-time.json") },
			"capture-time.json: not in the capture, so the time its nodes were read at is unknown: name one with --at (RFC 3339)"},
		{"a time that is none", func(f fstest.MapFS) { f["capture-time.json"] = &fstest.MapFile{Data: []byte(`{"time": "yesterday"}`)} },
			`capture-time.json: time: "yesterday" is not an RFC 3339 time`},
	}
	// The pods have a bound of their own: 10,000 of them pass the bound
	// of every other file. (Half a gigabyte, outside -short.)
	if !testing.Short() {
		refusals = append(refusals, refusal{"pods past the pods' bound", func(f fstest.MapFS) {
			f["k8s-pods.json"] = &fstest.MapFile{Data: bytes.Repeat([]byte(" "), doctor.MaxPodsFile+1)}
		}, "k8s-pods.json: is 536870913 bytes, more than a capture writes (536870912): not read"})
	}
	refusals = append(refusals, refusal{"nodes past the bound", func(f fstest.MapFS) {
		f["k8s-nodes.json"] = &fstest.MapFile{Data: bytes.Repeat([]byte(" "), doctor.MaxStateFile+1)}
	}, "k8s-nodes.json: is 67108865 bytes, more than a capture writes (67108864): not read"})
	for _, c := range refusals {
		f := full()
		c.edit(f)
		_, err := doctor.Objects(doctor.NewState(f, "state"), time.Time{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\n want %s", c.name, err, c.want)
		}
	}
	// Pods past the bound of other files are read (64 MiB decoded,
	// outside -short).
	if testing.Short() {
		return
	}
	f := full()
	f["k8s-pods.json"] = &fstest.MapFile{Data: append(bytes.Repeat([]byte(" "), doctor.MaxStateFile), []byte(`{"items": [{"kind": "Pod"}]}`)...)}
	if objs, err := doctor.Objects(doctor.NewState(f, "state"), time.Time{}); err != nil || len(objs.Pods) != 1 {
		t.Errorf("pods of %d bytes: %v", doctor.MaxStateFile+30, err)
	}
}
