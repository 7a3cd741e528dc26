//go:build !linux

package prefault

// populate does nothing: the advice is Linux's.
func populate() {}
