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
