//go:build !linux

package output

// exchangeNames: only Linux exchanges two names in one step; elsewhere a
// swap is three renames under the journal.
func exchangeNames(a, b string) error { return errNoExchange }
