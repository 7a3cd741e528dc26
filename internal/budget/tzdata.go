package budget

//go:generate go run ../../hack/zoneinfo

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"io"
	"sync"
	"time"
)

// zoneinfo is the IANA time zone database karpgen reads every zone from
// (data/SOURCE says which release). Neither the machine's database nor
// $ZONEINFO is read: the same profile renders the same schedules on a
// laptop, in CI and in the plugin's image, which has none.
//
//go:embed data/zoneinfo.zip
var zoneinfo []byte

var (
	zonesOnce sync.Once
	zones     map[string]*zip.File
)

// loadZone loads a zone of the embedded database by its IANA name.
func loadZone(name string) (*time.Location, bool) {
	zonesOnce.Do(func() {
		r, err := zip.NewReader(bytes.NewReader(zoneinfo), int64(len(zoneinfo)))
		if err != nil {
			panic("budget: the embedded zoneinfo.zip does not read: " + err.Error())
		}
		zones = make(map[string]*zip.File, len(r.File))
		for _, f := range r.File {
			zones[f.Name] = f
		}
	})
	f, ok := zones[name]
	if !ok {
		return nil, false
	}
	rc, err := f.Open()
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, 1<<20))
	if err != nil {
		return nil, false
	}
	loc, err := time.LoadLocationFromTZData(name, data)
	return loc, err == nil
}
