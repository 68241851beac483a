package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Files and folders Carteiro creates are its own alone (D64): without
// CARTEIRO_SECRET_KEY the SQLite database holds the key that opens the DKIM
// keys and webhook secrets. Modes are set with chmod after creating, since
// the mode given to open or mkdir is filtered through the umask.
const (
	privateFileMode fs.FileMode = 0o600
	privateDirMode  fs.FileMode = 0o700
)

// createPrivateFile creates path with mode 0600 and its missing folders
// with mode 0700. An existing file is left as it is: its mode is the
// operator's choice.
func createPrivateFile(path string) error {
	if err := makePrivateDirs(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateFileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	if err := f.Chmod(privateFileMode); err != nil {
		_ = f.Close()
		return fmt.Errorf("store: chmod %s: %w", path, err)
	}
	return f.Close()
}

// makePrivateDirs creates dir and its missing parents, each with mode 0700.
func makePrivateDirs(dir string) error {
	if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // there already, or not ours to create (open reports it)
	}
	if err := makePrivateDirs(filepath.Dir(dir)); err != nil {
		return err
	}
	err := os.Mkdir(dir, privateDirMode)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil // created meanwhile by someone else
	case err != nil:
		return fmt.Errorf("store: create folder %s: %w", dir, err)
	}
	if err := os.Chmod(dir, privateDirMode); err != nil {
		return fmt.Errorf("store: chmod folder %s: %w", dir, err)
	}
	return nil
}
