package e2e

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/testserver"
)

// The platform's JSON answers, the email log first, are gzipped for a
// client that accepts it, as the dashboard's pages are (issue 26), and say
// the same once decoded.
func TestPlatformJSONIsGzipped(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, be testserver.Backend) {
		ts := testserver.StartServer(t, be, nil)
		for range 3 {
			e := send(t, ts, ts.TestKey, map[string]any{"from": "hello@unverified.example", "to": "anyone@sandbox.example",
				"subject": "Compressed", "text": "t"})
			waitStatus(t, ts, ts.TestKey, e.ID, "delivered")
		}
		owner := ts.NewUser(t, ts.OrgID, "owner@example.com", carteiro.RoleOwner)
		owner.Mode = "test"
		for _, path := range []string{"/v1/platform/emails?limit=50", "/v1/platform/me"} {
			plain := owner.Do(t, "GET", path, nil, map[string]string{"Accept-Encoding": "identity"})
			testserver.Expect(t, plain, 200, "")
			testserver.Must(t, plain.Header.Get("Content-Encoding") == "", "%s: identity answered with %q", path, plain.Header.Get("Content-Encoding"))
			zipped := owner.Do(t, "GET", path, nil, map[string]string{"Accept-Encoding": "gzip"})
			testserver.Expect(t, zipped, 200, "")
			testserver.Must(t, zipped.Header.Get("Content-Encoding") == "gzip", "%s: Content-Encoding %q, want gzip", path, zipped.Header.Get("Content-Encoding"))
			zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
			testserver.Must(t, err == nil, "%s: %v", path, err)
			decoded, err := io.ReadAll(zr)
			testserver.Must(t, err == nil, "%s: %v", path, err)
			testserver.Must(t, bytes.Equal(decoded, plain.Body), "%s: decoded %s\nplain %s", path, decoded, plain.Body)
			testserver.Must(t, len(zipped.Body) < len(plain.Body), "%s: %d gzipped bytes for %d", path, len(zipped.Body), len(plain.Body))
		}
	})
}
