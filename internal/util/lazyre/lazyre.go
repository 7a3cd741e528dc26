// Package lazyre compiles a regular expression on its first use rather
// than when the program starts: every command pays for the package
// variables of every package linked in, and most commands use few of the
// expressions.
package lazyre

import (
	"regexp"
	"sync"
)

// RE is a regular expression compiled on the first call.
type RE func() *regexp.Regexp

// New returns expr compiled on the first call; an expression that does
// not compile panics then, as regexp.MustCompile does.
func New(expr string) RE {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
