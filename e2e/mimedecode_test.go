package e2e

import (
	"encoding/base64"
	"io"
	"mime/quotedprintable"
	"strings"
	"testing"
)

func decodeTransfer(t *testing.T, encoding string, r io.Reader) io.Reader {
	t.Helper()
	switch strings.ToLower(encoding) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &stripNewlines{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// stripNewlines drops CR and LF so base64 lines can be decoded as one.
type stripNewlines struct{ r io.Reader }

func (s *stripNewlines) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	j := 0
	for _, c := range p[:n] {
		if c != '\r' && c != '\n' {
			p[j] = c
			j++
		}
	}
	return j, err
}
