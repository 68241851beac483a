//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking flock on path. The lock lives
// with the open file: closing it, or the process ending however it ends,
// releases it.
func lockFile(path string) (release func(), locked bool, err error) {
	if err := createPrivateFile(path); err != nil { // D64
		return nil, false, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, false, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, ErrServedElsewhere
		}
		return nil, false, fmt.Errorf("store: lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, true, nil
}
