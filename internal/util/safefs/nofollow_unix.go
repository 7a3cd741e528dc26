//go:build unix

package safefs

import "syscall"

// noFollow makes an open fail on a symbolic link (and on a FIFO, not
// block).
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
