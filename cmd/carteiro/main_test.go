package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// cli runs one command line in-process against the database at url.
func cli(t *testing.T, url, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	env := map[string]string{"CARTEIRO_DATABASE_URL": url, "CARTEIRO_INBOUND_ADDR": "", "CARTEIRO_SUBMISSION_ADDR": "", "CARTEIRO_LOG_FORMAT": "json"}
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut,
		func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return code, out.String(), errOut.String()
}

func TestOrganizationsAndKeysFromTheCommandLine(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		url := testserver.DatabaseURL(t, b)
		code, out, errOut := cli(t, url, "", "org", "create", "--name", "Acme", "--json")
		if code != 0 {
			t.Fatalf("org create: %d %s", code, errOut)
		}
		var org struct{ ID, Name string }
		if err := json.Unmarshal([]byte(out), &org); err != nil || org.ID == "" || org.Name != "Acme" {
			t.Fatalf("org create --json printed %q", out)
		}

		code, out, errOut = cli(t, url, "", "key", "create", "--org", org.ID, "--name", "ci", "--mode", "test",
			"--permission", "sending_access", "--json")
		if code != 0 {
			t.Fatalf("key create: %d %s", code, errOut)
		}
		var key struct{ ID, Key, Name, Mode, Permission string }
		if err := json.Unmarshal([]byte(out), &key); err != nil || !strings.HasPrefix(key.Key, "svc_test_") ||
			key.Mode != "test" || key.Permission != "sending_access" || key.Name != "ci" {
			t.Fatalf("key create --json printed %q", out)
		}

		code, out, _ = cli(t, url, "", "key", "list", "--org", org.ID, "--json")
		if code != 0 || !strings.Contains(out, key.ID) || strings.Contains(out, key.Key) {
			t.Fatalf("key list: %d %q (must list the id, never the key)", code, out)
		}
		code, out, _ = cli(t, url, "", "key", "list", "--org", org.ID)
		if code != 0 || !strings.Contains(out, "sending_access") {
			t.Fatalf("key list table: %d %q", code, out)
		}
		if code, _, errOut = cli(t, url, "", "key", "revoke", key.ID); code != 0 {
			t.Fatalf("key revoke: %d %s", code, errOut)
		}
		code, out, _ = cli(t, url, "", "key", "list", "--org", org.ID, "--json")
		if code != 0 || !strings.Contains(out, `"revokedAt":"`) {
			t.Fatalf("revoked key not shown as revoked: %q", out)
		}

		if code, _, errOut = cli(t, url, "correct horse battery\n", "org", "set-password", "--org", org.ID); code != 0 {
			t.Fatalf("set-password: %d %s", code, errOut)
		}
		code, out, errOut = cli(t, url, "", "org", "list", "--json")
		var list struct {
			Organizations []struct {
				ID, Name                 string
				PasswordSet, TOTPEnabled bool
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
			t.Fatalf("org list --json: %d %q %s", code, out, errOut)
		}
		if len(list.Organizations) != 1 || list.Organizations[0].ID != org.ID || list.Organizations[0].Name != "Acme" ||
			!list.Organizations[0].PasswordSet || list.Organizations[0].TOTPEnabled || strings.Contains(out, "argon2") {
			t.Fatalf("org list --json printed %q (want Acme with its password set, no hash)", out)
		}
		code, out, _ = cli(t, url, "", "org", "list")
		if code != 0 || !strings.Contains(out, org.ID) || !strings.Contains(out, "Acme") || !strings.HasPrefix(out, "ID ") {
			t.Fatalf("org list table: %d %q", code, out)
		}
		code, out, _ = cli(t, url, "", "org", "enable-totp", "--org", org.ID, "--json")
		if code != 0 || !strings.Contains(out, "otpauth://totp/") {
			t.Fatalf("enable-totp: %d %q", code, out)
		}
		if code, out, _ = cli(t, url, "", "migrate"); code != 0 || !strings.Contains(out, "migrations applied") {
			t.Fatalf("migrate: %d %q", code, out)
		}
		// Unknown ids are errors (exit 1), not crashes.
		if code, _, errOut = cli(t, url, "", "key", "create", "--org", "0190aaaa-0000-7000-8000-000000000000", "--name", "x", "--mode", "live"); code != 1 {
			t.Fatalf("key create for an unknown org: exit %d %s", code, errOut)
		}
	})
}

func TestUsageErrors(t *testing.T) {
	url := "sqlite:" + t.TempDir() + "/c.db"
	for _, args := range [][]string{
		{}, {"frobnicate"}, {"org"}, {"org", "create"}, {"key", "create", "--org", "x"}, {"key", "revoke"},
		{"key", "create", "--org", "x", "--name", "n", "--mode", "live", "--bogus"}, {"serve", "--role", "boss"},
		{"org", "list", "extra"},
		{"send"}, {"send", "--from", "a@x.example", "--to", "b@y.example", "--subject", "s"},
		{"send", "--from", "a@x.example", "--subject", "s", "--text", "t"},
		// No key: neither --key nor CARTEIRO_API_KEY.
		{"send", "--from", "a@x.example", "--to", "b@y.example", "--subject", "s", "--text", "t"},
	} {
		if code, _, _ := cli(t, url, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, out, _ := cli(t, url, "", "version"); code != 0 || !strings.HasPrefix(out, "carteiro ") {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, errOut := cli(t, url, "", "key", "create", "--org", "x", "--name", "n", "--mode", "sometimes"); code != 1 ||
		!strings.Contains(errOut, "mode") {
		t.Errorf("bad mode: %d %q", code, errOut)
	}
}
