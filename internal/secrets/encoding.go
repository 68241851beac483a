package secrets

import (
	"encoding/base64"
	"errors"
)

// tokenEncoding is unpadded base64url, safe in URLs and cookies.
var tokenEncoding = base64.RawURLEncoding.Strict()

// errNonCanonical refuses encodings that decode but are not what encode
// would produce (stray CR/LF, which the decoder skips). Without it, several
// strings would stand for the same bytes and a changed character could go
// unnoticed.
var errNonCanonical = errors.New("non-canonical base64url")

// decodeCanonical decodes s and insists it is the one encoding of its bytes.
func decodeCanonical(s string) ([]byte, error) {
	b, err := tokenEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if tokenEncoding.EncodeToString(b) != s {
		return nil, errNonCanonical
	}
	return b, nil
}
