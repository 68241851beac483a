//go:build !cgo || !linux

package libcrypto

import (
	"errors"
	"unsafe"
)

// Library is an opened libcrypto; this build cannot open one.
type Library struct {
	Version uint64
}

// Open fails: this binary was built without cgo (or not for Linux), so it
// signs with Go's crypto/rsa.
func Open() (*Library, error) {
	return nil, errors.New("libcrypto: this binary was built without cgo")
}

func (l *Library) loadRSA([]byte) (unsafe.Pointer, error) {
	return nil, errors.New("libcrypto: not available")
}

func (l *Library) freeKey(unsafe.Pointer) {}

func (l *Library) signPKCS1v15(unsafe.Pointer, bool, []byte, []byte) (int, error) {
	return 0, errors.New("libcrypto: not available")
}
