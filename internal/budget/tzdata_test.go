package budget

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
)

// TestZoneDataAsArchiveZip: every entry of the embedded database reads,
// in place, as archive/zip reads it, and names it does not hold are not
// found.
func TestZoneDataAsArchiveZip(t *testing.T) {
	r, err := zip.NewReader(bytes.NewReader(zoneinfo), int64(len(zoneinfo)))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.File) < 500 {
		t.Fatalf("the database holds %d zones", len(r.File))
	}
	for _, f := range r.File {
		if f.Method != zip.Store {
			t.Errorf("%s is compressed (method %d): zoneData reads stored entries only; keep Go's copy as it is", f.Name, f.Method)
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := zoneData(zoneinfo, f.Name)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("zoneData(%q): %d bytes (found %v), archive/zip reads %d", f.Name, len(got), ok, len(want))
		}
	}
	for _, name := range []string{"", "Asia", "Asia/", "asia/seoul", "Asia/Seoul ", "Local", "../Asia/Seoul"} {
		if _, ok := zoneData(zoneinfo, name); ok {
			t.Errorf("zoneData(%q) found a zone", name)
		}
	}
	if _, ok := zoneData(zoneinfo[:len(zoneinfo)-1], "Asia/Seoul"); ok {
		t.Error("a cut archive reads")
	}
	if _, ok := zoneData(nil, "Asia/Seoul"); ok {
		t.Error("no archive reads")
	}
}

func TestLoadZoneRemembers(t *testing.T) {
	a, ok := loadZone("Asia/Seoul")
	if !ok || a.String() != "Asia/Seoul" {
		t.Fatalf("Asia/Seoul: %v, %v", a, ok)
	}
	if b, _ := loadZone("Asia/Seoul"); b != a {
		t.Error("Asia/Seoul is loaded again")
	}
	if loc, ok := loadZone("Mars/Olympus_Mons"); ok || loc != nil {
		t.Errorf("Mars/Olympus_Mons: %v, %v", loc, ok)
	}
	if _, ok := loadZone("Mars/Olympus_Mons"); ok {
		t.Error("a name the database lacks is found the second time")
	}
}
