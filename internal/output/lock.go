package output

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lock is an advisory lock (flock) on the out/ folder itself: no file is
// left behind, and the kernel drops it when the process ends, so a
// crashed render never leaves out/ locked.
type lock struct{ f *os.File }

// acquire takes the lock of outDir, waiting up to wait for another render
// to finish.
func acquire(outDir string, wait time.Duration) (*lock, error) {
	f, err := os.Open(outDir)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", filepath.ToSlash(outDir), err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &lock{f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", filepath.ToSlash(outDir), err)
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("another karpgen (render, or upgrade --write) is writing %s; gave up after waiting %s (--lock-wait)", filepath.ToSlash(outDir), wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (l *lock) release() {
	if l != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
	}
}
