package output

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A render replaces the folders of out/ in one commit that a kill at any
// point cannot leave half done. Before the first replacement, a journal
// (.karpgen-journal) lists every move with the inode of what it moves in;
// each move is one rename, or one exchange of two names where the target
// exists (Linux's renameat2 RENAME_EXCHANGE), so every name of out/ always
// holds a whole folder. Removing the journal is the commit point. A run
// that finds a journal (the render before it was killed) puts back every
// move it finds done, telling which, before anything else: out/ is then
// as it was before the interrupted render.

const journalFile = tmpPrefix + "journal"

// moveKind is what a move does.
type moveKind string

const (
	// moveSwap exchanges staged (the new folder or file) with target,
	// which exists: afterwards staged holds what target held.
	moveSwap moveKind = "swap"
	// moveNew renames staged to target, which does not exist.
	moveNew moveKind = "new"
	// moveGone renames target to staged: the target is removed.
	moveGone moveKind = "gone"
)

// move is one replacement in out/; target and staged are slash paths
// relative to out/, and ino is the inode of what the move puts at target
// (moveSwap, moveNew) or takes from it (moveGone).
type move struct {
	kind           moveKind
	target, staged string
	ino            uint64
}

// interrupt, in tests, stops a commit after a step as a kill would: when
// it returns true nothing more is done, not even undone.
var interrupt func(step int) bool

// errInterrupted is what a commit stopped by interrupt returns.
var errInterrupted = errors.New("interrupted")

// exchange swaps two names at once (swap_linux.go); errNoExchange says
// the system cannot, and the swap is then two renames, with the old
// entry at staged+"-old" in between (the journal puts it back from there
// too).
var exchange = exchangeNames

// errNoExchange is the error of a system without an exchange of names.
var errNoExchange = errors.New("the system cannot exchange two names at once")

func inode(p string) (uint64, bool) {
	info, err := os.Lstat(p)
	if err != nil {
		return 0, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}

// commit makes the moves, in order, under a journal. When a move fails,
// the moves already made are undone, so out/ is as it was, and the error
// names what could not be replaced. On success the journal is gone and
// the staged names of moveSwap and moveGone hold what was replaced.
func commit(outDir string, moves []move) ([]move, error) {
	if len(moves) == 0 {
		return nil, nil
	}
	if err := writeJournal(outDir, moves); err != nil {
		return nil, err
	}
	var done []move
	step := 0
	stop := func() bool {
		step++
		return interrupt != nil && interrupt(step)
	}
	for _, m := range moves {
		target, staged := filepath.Join(outDir, filepath.FromSlash(m.target)), filepath.Join(outDir, filepath.FromSlash(m.staged))
		fail := func(err error) ([]move, error) {
			undo(outDir, done)
			os.Remove(filepath.Join(outDir, journalFile))
			return nil, fmt.Errorf("replacing %s: %w", filepath.ToSlash(target), err)
		}
		var err error
		switch m.kind {
		case moveSwap:
			// The journal puts back a swap stopped between its renames
			// from staged+"-old".
			var stopped bool
			if stopped, err = swapNames(staged, target, staged+"-old", stop); stopped {
				return nil, errInterrupted
			}
		case moveNew:
			if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
				err = os.Rename(staged, target)
			}
		case moveGone:
			err = os.Rename(target, staged)
		}
		if err != nil {
			return fail(err)
		}
		done = append(done, m)
		if stop() {
			return nil, errInterrupted
		}
	}
	return done, nil
}

// finishCommit removes the journal: from here on the moves stand.
func finishCommit(outDir string) error {
	err := os.Remove(filepath.Join(outDir, journalFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// undo puts back what moves did, last first.
func undo(outDir string, done []move) {
	for i := len(done) - 1; i >= 0; i-- {
		m := done[i]
		target, staged := filepath.Join(outDir, filepath.FromSlash(m.target)), filepath.Join(outDir, filepath.FromSlash(m.staged))
		switch m.kind {
		case moveSwap:
			swapNames(staged, target, staged+"-new", nil)
		case moveNew:
			os.Rename(target, staged)
		case moveGone:
			os.Rename(staged, target)
		}
	}
}

// swapNames exchanges two names: at once where the system can, else with
// three renames, b moved aside first, and between the first two renames
// between (when set) may stop it as a kill would.
func swapNames(a, b, aside string, between func() bool) (stopped bool, err error) {
	err = exchange(a, b)
	if err == nil || !(errors.Is(err, errNoExchange) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL)) {
		return false, err
	}
	if err := os.Rename(b, aside); err != nil {
		return false, err
	}
	if between != nil && between() {
		return true, nil
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(aside, b)
		return false, err
	}
	return false, os.Rename(aside, a)
}

// writeJournal writes the moves to out/'s journal before the first move.
func writeJournal(outDir string, moves []move) error {
	var b strings.Builder
	b.WriteString("# karpgen: a render is replacing these; a run that finds this file puts them back\n")
	for _, m := range moves {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d\n", m.kind, m.target, m.staged, m.ino)
	}
	p := filepath.Join(outDir, journalFile)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.ToSlash(p), err)
	}
	// Not synced to disk: the journal guards against the process being
	// killed, whose writes the kernel keeps, as it keeps the staged
	// folders', which are not synced either.
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return fmt.Errorf("writing %s: %w", filepath.ToSlash(p), err)
	}
	return nil
}

// readJournal reads out/'s journal; ok is false when there is none. The
// journal is untrusted like all of out/: a move must name a plain path
// inside out/ and a staged entry of karpgen's own.
func readJournal(outDir string) ([]move, bool, error) {
	p := filepath.Join(outDir, journalFile)
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if !info.Mode().IsRegular() || info.Size() > 1<<20 {
		return nil, true, fmt.Errorf("%s is not a journal karpgen wrote", filepath.ToSlash(p))
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, true, err
	}
	var moves []move
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		bad := fmt.Errorf("%s:%d: not a move karpgen writes: %q", filepath.ToSlash(p), n, line)
		if len(f) != 4 {
			return nil, true, bad
		}
		ino, err := strconv.ParseUint(f[3], 10, 64)
		m := move{kind: moveKind(f[0]), target: f[1], staged: f[2], ino: ino}
		if err != nil || (m.kind != moveSwap && m.kind != moveNew && m.kind != moveGone) ||
			!plainPath(m.target) || strings.HasPrefix(m.target, tmpPrefix) ||
			!plainPath(m.staged) || strings.Contains(m.staged, "/") || !strings.HasPrefix(m.staged, tmpPrefix) || m.staged == journalFile {
			return nil, true, bad
		}
		moves = append(moves, m)
	}
	return moves, true, nil
}

// plainPath is a relative slash path that stays inside its folder.
func plainPath(p string) bool {
	return p != "" && p == path.Clean(p) && !path.IsAbs(p) && p != "." && p != ".." && !strings.HasPrefix(p, "../") && !strings.ContainsAny(p, "\x00\\")
}

// recoverJournal puts back the moves of an interrupted render, last
// first, and returns the targets it put back. A move is put back only
// where the inode it recorded is found: nothing else in out/ is touched.
func recoverJournal(outDir string) ([]string, error) {
	moves, found, err := readJournal(outDir)
	if !found || err != nil {
		return nil, err
	}
	var restored []string
	for i := len(moves) - 1; i >= 0; i-- {
		m := moves[i]
		target, staged := filepath.Join(outDir, filepath.FromSlash(m.target)), filepath.Join(outDir, filepath.FromSlash(m.staged))
		ti, tok := inode(target)
		put := false
		switch m.kind {
		case moveSwap:
			_, sok := inode(staged)
			_, ook := inode(staged + "-old")
			switch {
			case tok && ti == m.ino && sok:
				_, err := swapNames(staged, target, staged+"-new", nil)
				put = err == nil
			case tok && ti == m.ino && ook:
				put = os.Rename(target, staged) == nil && os.Rename(staged+"-old", target) == nil
			case !tok && ook:
				put = os.Rename(staged+"-old", target) == nil
			}
		case moveNew:
			if tok && ti == m.ino {
				put = os.Rename(target, staged) == nil
			}
		case moveGone:
			if si, sok := inode(staged); !tok && sok && si == m.ino {
				put = os.Rename(staged, target) == nil
			}
		}
		if put {
			restored = append(restored, m.target)
		}
	}
	if err := finishCommit(outDir); err != nil {
		return restored, err
	}
	return restored, nil
}

// removable checks that what a render replaces at p can be removed once
// it is replaced: every folder in it must let this user delete what it
// holds. Checked before anything changes, so that a render never stops
// with the new bundles in place and the old ones stuck in out/.
func removable(p string) error {
	return filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && q == p {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if err := unix.Access(q, unix.W_OK|unix.X_OK); err != nil {
			return fmt.Errorf("%s is not writable (%v): karpgen could not remove what it replaces; make it writable (chmod -R u+w %s)", filepath.ToSlash(q), err, filepath.ToSlash(p))
		}
		return nil
	})
}

// removeLeftovers drops temporary entries an interrupted render left; an
// interrupted commit is put back first (recoverJournal).
func removeLeftovers(outDir string) {
	entries, _ := os.ReadDir(outDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) && e.Name() != journalFile {
			os.RemoveAll(filepath.Join(outDir, e.Name()))
		}
	}
}
