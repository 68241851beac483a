package carteiro

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
	"time"
)

// Mode separates live objects from test objects (D7).
type Mode string

const (
	ModeLive Mode = "live"
	ModeTest Mode = "test"
)

// Permission limits what a key may do (D6).
type Permission string

const (
	PermissionFull    Permission = "full_access"
	PermissionSending Permission = "sending_access"
)

// Key prefixes of section 5.
const (
	LiveKeyPrefix = "svc_live_"
	TestKeyPrefix = "svc_test_"
)

// keyRandomLength is the number of base62 characters after the prefix (D6
// asks for at least 32).
const keyRandomLength = 40

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// APIKey is a credential; only the SHA-256 of the secret is stored (D6).
type APIKey struct {
	ID         string
	OrgID      string
	Name       string
	Mode       Mode
	Permission Permission
	Domain     string // optional domain restriction of the from address
	Hash       string // hex SHA-256 of the full key
	Prefix     string // first characters of the key, to recognise it in lists
	CreatedAt  time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
	// CreatedBy is who made the key: a dashboard user's email, or "cli".
	CreatedBy string
}

// RandomBase62 returns n characters from crypto/rand.
func RandomBase62(n int) string {
	var b strings.Builder
	b.Grow(n)
	max := big.NewInt(int64(len(base62)))
	for i := 0; i < n; i++ {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			// crypto/rand never fails on supported platforms; a panic beats a weak key.
			panic("crypto/rand: " + err.Error())
		}
		b.WriteByte(base62[v.Int64()])
	}
	return b.String()
}

// NewSecretKey returns a fresh key string for mode.
func NewSecretKey(mode Mode) string {
	prefix := LiveKeyPrefix
	if mode == ModeTest {
		prefix = TestKeyPrefix
	}
	return prefix + RandomBase62(keyRandomLength)
}

// HashKey is the stored form of a key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyMode tells the mode a key string claims by its prefix, and whether its
// shape is plausible (prefix, then at least 32 base62 characters).
func KeyMode(key string) (Mode, bool) {
	var mode Mode
	var rest string
	switch {
	case strings.HasPrefix(key, LiveKeyPrefix):
		mode, rest = ModeLive, key[len(LiveKeyPrefix):]
	case strings.HasPrefix(key, TestKeyPrefix):
		mode, rest = ModeTest, key[len(TestKeyPrefix):]
	default:
		return "", false
	}
	if len(rest) < 32 || len(rest) > 128 {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		if !strings.ContainsRune(base62, rune(rest[i])) {
			return "", false
		}
	}
	return mode, true
}

// ValidMode and ValidPermission check CLI and API input.
func ValidMode(m Mode) bool { return m == ModeLive || m == ModeTest }

// ValidPermission reports whether p is one of the two permissions of D6.
func ValidPermission(p Permission) bool { return p == PermissionFull || p == PermissionSending }
