package carteiro

import (
	"crypto/rand"
	"fmt"
)

// newIdempotencyKey is a random UUID (version 4): unique per send, so only
// the client's own repeats of that send share it.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
