// Package printer shows what karpgen found and planned to people and to
// scripts: findings of vet, import, render, doctor and upgrade in one
// text form and one JSON form, the doctor's report, the fleet diff's, the
// plans of upgrade, promote, rotate and migrate, the simulation's report
// and the IAM table of vet --explain-iam. Report prints any of them in
// the format -o names.
//
// The rule: what a command prints is printed here, from values the
// actions return; nothing else writes a report to a terminal. The
// upgrade plan's UPGRADE.md is printed here too and written by the
// action; SUMMARY.md, a file of every bundle, is the generators'.
package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// JSON is karpgen's one JSON printer for people and scripts: indented by
// two spaces, HTML characters as they are, a final newline. Every
// character a terminal or a CI log could act on or that reorders what is
// shown (C1 controls, bidirectional overrides, zero-width and other
// format characters) is written as a \u escape, so the output shows what
// it holds and decodes to the same value; encoding/json escapes only the
// C0 controls and U+2028/2029.
func JSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeInvisible(b.Bytes()))
	return err
}

// escapeInvisible writes each character of data above ASCII that is not
// graphic as a \u escape (a pair of them above U+FFFF). Such a character
// of JSON can only be inside a string, where the escape means it.
func escapeInvisible(data []byte) []byte {
	clean := true
	for _, r := range string(data) {
		if r >= utf8.RuneSelf && !unicode.IsGraphic(r) {
			clean = false
			break
		}
	}
	if clean {
		return data
	}
	var out bytes.Buffer
	for _, r := range string(data) {
		switch {
		case r < utf8.RuneSelf || unicode.IsGraphic(r):
			out.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.Bytes()
}
