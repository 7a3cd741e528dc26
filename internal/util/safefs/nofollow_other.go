//go:build !unix

package safefs

// noFollow: the system has no O_NOFOLLOW; the walk's Lstat and the
// check after opening still refuse links.
const noFollow = 0
