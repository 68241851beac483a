package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// `carteiro user create` reads the password on stdin (D73); the user then
// signs in to the dashboard of a server on that database.
func TestUserCreateFromTheCommandLine(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		url := testserver.DatabaseURL(t, b)
		code, out, errOut := cli(t, url, "", "org", "create", "--name", "Acme", "--json")
		if code != 0 {
			t.Fatalf("org create: %d %s", code, errOut)
		}
		var org struct{ ID string }
		if err := json.Unmarshal([]byte(out), &org); err != nil {
			t.Fatal(err)
		}
		if code, _, _ := cli(t, url, "pw-long-enough\n", "user", "create", "--org", org.ID, "--email", "a@example.com", "--role", "admin"); code != 2 {
			t.Fatalf("--role admin: exit %d, want 2", code)
		}
		if code, _, errOut := cli(t, url, "short\n", "user", "create", "--org", org.ID, "--email", "a@example.com"); code != 1 || !strings.Contains(errOut, "too_short") {
			t.Fatalf("short password: exit %d %s", code, errOut)
		}
		code, out, errOut = cli(t, url, testserver.UserPassword+"\n", "user", "create", "--org", org.ID, "--email", "Boss@Example.com", "--role", "owner", "--json")
		if code != 0 || !strings.Contains(out, `"email":"boss@example.com"`) || !strings.Contains(out, `"role":"owner"`) {
			t.Fatalf("user create: %d %q %s", code, out, errOut)
		}
		if strings.Contains(out+errOut, testserver.UserPassword) {
			t.Fatalf("the password is echoed: %q %q", out, errOut)
		}
		if code, _, _ := cli(t, url, testserver.UserPassword+"\n", "user", "create", "--org", org.ID, "--email", "boss@example.com"); code != 1 {
			t.Fatalf("same email again: exit %d, want 1", code)
		}

		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_DATABASE_URL": url})
		br := ts.NewBrowser(t)
		br.Login(t, "boss@example.com", testserver.UserPassword)
		r := br.Do(t, "GET", "/v1/platform/me", nil, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), org.ID) || !strings.Contains(string(r.Body), `"role":"owner"`) {
			t.Fatalf("me: %d %s", r.Status, r.Body)
		}
	})
}
