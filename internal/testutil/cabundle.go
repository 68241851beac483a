package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// BundleCAs writes the CA certificates of several receivers into one PEM
// file, for a server that must trust them all (CARTEIRO_WEBHOOK_CA_FILE).
func BundleCAs(t testing.TB, receivers ...*TLSReceiver) string {
	t.Helper()
	var bundle []byte
	for _, r := range receivers {
		pem, err := os.ReadFile(r.CAFile())
		if err != nil {
			t.Fatalf("read CA: %v", err)
		}
		bundle = append(bundle, pem...)
	}
	path := filepath.Join(t.TempDir(), "ca-bundle.pem")
	if err := os.WriteFile(path, bundle, 0o600); err != nil {
		t.Fatalf("write CA bundle: %v", err)
	}
	return path
}
