package output

import "golang.org/x/sys/unix"

// exchangeNames swaps two names in one step: renameat2(RENAME_EXCHANGE).
func exchangeNames(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
