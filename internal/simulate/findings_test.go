package simulate

import "testing"

// TestHintsFromSelectablePools: a hint never names a pool the pod cannot
// select. A pod whose selectors allow pool app only, Pending for a
// volume in another zone beside the taint of pool batch, is told about
// the zone, not the batch toleration; one that selects the tainted pool
// is told its toleration.
func TestHintsFromSelectablePools(t *testing.T) {
	reason := "did not tolerate taint (taint=workload=batch:NoSchedule); incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [ap-northeast-2b] not in topology.kubernetes.io/zone In [ap-northeast-2a ap-northeast-2c]"
	for _, c := range []struct {
		asks []AskedPool
		want string
	}{
		{[]AskedPool{{Pool: "app"}}, "its volume is bound to ap-northeast-2b, which no pool it may use reaches: add that zone to the pool (nodePools.<pool>.zones), or move the volume"},
		{[]AskedPool{{Pool: "batch", Untolerated: []Taint{{Key: "workload", Value: "batch", Effect: "NoSchedule"}}}}, "its selectors ask for pool batch: add the toleration {key: workload, value: batch, effect: NoSchedule} of that pool to its pod template"},
		{nil, "add the toleration {key: workload, value: batch, effect: NoSchedule} to its pod template, or select a pool or node group it tolerates"},
	} {
		if got := hintFor(reason, c.asks); got != c.want {
			t.Errorf("asks %v: %q, want %q", c.asks, got, c.want)
		}
	}
}

// TestWhatStillKeepsThemOff: beside a spent limit, upstream names only
// the limit; the hint names first what room would not fix (the selected
// pool's taint, a volume's zone), and Unsaid drops what upstream's
// reasons already quote.
func TestWhatStillKeepsThemOff(t *testing.T) {
	limit := "all available instance types exceed limits for nodepool (NodePool=app)"
	tainted := AskedPool{Pool: "app", Untolerated: []Taint{{Key: "nodegroup", Value: "app", Effect: "NoSchedule"}}, VolumeZones: []string{"ap-northeast-2b"}}
	want := "even under its limits, pool app would refuse it (they do not tolerate its taint nodegroup=app:NoSchedule; their volumes are bound to ap-northeast-2b, which it does not reach): add the toleration {key: nodegroup, value: app, effect: NoSchedule} of that pool to its pod template, and add ap-northeast-2b to the pool's zones (nodePools.app.zones) or move the volume; then, if it still stays, raise the pool's limits (nodePools.app.limits)"
	if got := hintFor(limit, []AskedPool{{Pool: "spare"}, tainted}); got != want {
		t.Errorf("hint %q\nwant %q", got, want)
	}
	if got, want := hintFor(limit, []AskedPool{{Pool: "app"}}), "raise the pool's limits (nodePools.<pool>.limits), or lower what the workload requests"; got != want {
		t.Errorf("nothing but the limit: %q, want %q", got, want)
	}
	for _, c := range []struct {
		reasons []string
		want    string
	}{
		{[]string{limit}, "they do not tolerate its taint nodegroup=app:NoSchedule; their volumes are bound to ap-northeast-2b, which it does not reach"},
		{[]string{"did not tolerate taint (taint=nodegroup=app:NoSchedule)"}, "their volumes are bound to ap-northeast-2b, which it does not reach"},
		{[]string{"incompatible volume requirements, key topology.kubernetes.io/zone", "did not tolerate taint (taint=nodegroup=app:NoSchedule)"}, ""},
	} {
		if got := StillRefused(Unsaid(tainted, c.reasons)); got != c.want {
			t.Errorf("reasons %q: %q, want %q", c.reasons, got, c.want)
		}
	}
}
