package e2e

import (
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// A visitor of / lands on the dashboard's sign-in page (D73), which passes
// the accessibility check and runs under its CSP without a refusal. Not
// parallel, as TestDashboardFirstDayBrowser.
func TestDashboardSignInPageBrowser(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, be testserver.Backend) {
		ts := testserver.StartServer(t, be, nil)
		b := newBrowser(t, string(be))
		b.open(ts.URL + "/")
		b.waitText("h1", "Sign in")
		if loc := eval[string](b, "location.pathname"); !strings.HasPrefix(loc, "/dashboard/login") {
			t.Errorf("landed on %s, want /dashboard/login", loc)
		}
		b.checkA11y("sign-in")
		b.docShot("login")
		// The browser's language picks the page's (D73, D10's matching).
		b.acceptLanguage("pt-BR,pt;q=0.9")
		b.open(ts.URL + "/dashboard/login")
		b.waitText("h1", "Entrar")
		b.acceptLanguage("es-MX")
		b.open(ts.URL + "/dashboard/login")
		b.waitText("h1", "Iniciar sesión")
		b.acceptLanguage("en-US")
		b.open(ts.URL + "/dashboard/login")
		b.waitText("h1", "Sign in")

		// A wrong password is refused with a message, and the page stays.
		b.fill("input[name=email]", "nobody@example.com")
		b.fill("input[name=password]", "not the password")
		b.click("#login-form button[type=submit]")
		if msg := b.text("#login-form .error"); msg == "" {
			t.Error("no message after a refused sign-in")
		}
	})
}
