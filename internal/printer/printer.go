// Package printer shows what karpgen found and planned to people and to
// scripts: findings of vet, import, render, doctor and upgrade in one
// text form and one JSON form, the doctor's report and the fleet diff's.
// The logic packages hand over values; nothing in them writes a report.
package printer

import (
	"encoding/json"
	"io"
)

// JSON is karpgen's one JSON printer for people and scripts: indented by
// two spaces, HTML characters as they are, a final newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
