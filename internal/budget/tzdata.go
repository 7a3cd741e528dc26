package budget

//go:generate go run ../../hack/zoneinfo

import (
	_ "embed"
	"encoding/binary"
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

// locations holds each name asked for: its zone, or nil when the
// database has none. A fleet asks for a handful of names, many times.
var locations sync.Map

// loadZone loads a zone of the embedded database by its IANA name.
func loadZone(name string) (*time.Location, bool) {
	if v, ok := locations.Load(name); ok {
		loc := v.(*time.Location)
		return loc, loc != nil
	}
	var loc *time.Location
	if data, ok := zoneData(zoneinfo, name); ok {
		if l, err := time.LoadLocationFromTZData(name, data); err == nil {
			loc = l
		}
	}
	locations.Store(name, loc)
	return loc, loc != nil
}

// Zip records, as APPNOTE.TXT lays them out.
const (
	endSignature     = 0x06054b50 // end of central directory
	centralSignature = 0x02014b50 // central directory file header
	localSignature   = 0x04034b50 // local file header
	endLen           = 22
	centralLen       = 46
	localLen         = 30
)

// zoneData is what the entry called name holds in the zip archive z.
// The archive is Go's (hack/zoneinfo), its entries stored uncompressed,
// so a zone is read where it lies: one pass over the central directory
// finds it, without an index of all 598 entries (archive/zip builds one,
// 200 KB, and took a millisecond of every render). A compressed or
// malformed entry is not found; TestZoneDataAsArchiveZip holds every name
// to archive/zip.
func zoneData(z []byte, name string) ([]byte, bool) {
	end := len(z) - endLen
	if end < 0 || binary.LittleEndian.Uint32(z[end:]) != endSignature {
		return nil, false // the archive has a comment, or is not one
	}
	entries := int(binary.LittleEndian.Uint16(z[end+10:]))
	at := int(binary.LittleEndian.Uint32(z[end+16:]))
	for range entries {
		if at < 0 || at+centralLen > end || binary.LittleEndian.Uint32(z[at:]) != centralSignature {
			return nil, false
		}
		method := binary.LittleEndian.Uint16(z[at+10:])
		size := int(binary.LittleEndian.Uint32(z[at+20:]))
		nameLen := int(binary.LittleEndian.Uint16(z[at+28:]))
		extraLen := int(binary.LittleEndian.Uint16(z[at+30:]))
		commentLen := int(binary.LittleEndian.Uint16(z[at+32:]))
		local := int(binary.LittleEndian.Uint32(z[at+42:]))
		if at+centralLen+nameLen > end {
			return nil, false
		}
		if string(z[at+centralLen:at+centralLen+nameLen]) == name {
			if method != 0 || size != int(binary.LittleEndian.Uint32(z[at+24:])) {
				return nil, false
			}
			if local < 0 || local+localLen > end || binary.LittleEndian.Uint32(z[local:]) != localSignature {
				return nil, false
			}
			start := local + localLen + int(binary.LittleEndian.Uint16(z[local+26:])) + int(binary.LittleEndian.Uint16(z[local+28:]))
			if start+size > end {
				return nil, false
			}
			return z[start : start+size : start+size], true
		}
		at += centralLen + nameLen + extraLen + commentLen
	}
	return nil, false
}
