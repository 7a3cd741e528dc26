package fieldpos

import "testing"

// TestZeroSource: the zero Source places no field and has none; the
// upgrade planner checks a target profile with it.
func TestZeroSource(t *testing.T) {
	var s Source
	if s.Has("nodePools.app") || s.Pos("nodePools.app.zones[1]").IsValid() || s.IsJsonnet() {
		t.Errorf("the zero source: has %v, pos %v", s.Has("nodePools.app"), s.Pos("nodePools.app.zones[1]"))
	}
}
