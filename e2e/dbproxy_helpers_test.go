package e2e

import (
	neturl "net/url"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// proxiedPostgres returns the URL of a fresh PostgreSQL database reached
// through a TCP proxy, and the proxy, so a test can cut the service off
// from the shared server (which keeps running) and restore it.
func proxiedPostgres(t *testing.T) (string, *testutil.TCPProxy) {
	t.Helper()
	u, err := neturl.Parse(testserver.DatabaseURL(t, testserver.Postgres))
	if err != nil {
		t.Fatalf("database URL: %v", err)
	}
	proxy := testutil.NewTCPProxy(t, u.Host)
	u.Host = proxy.Addr()
	return u.String(), proxy
}
