package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// runCLI runs the real carteiro binary with only the given environment, and
// returns its exit code and output.
func runCLI(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	bin, err := buildBinary()
	testserver.Must(t, err == nil, "build carteiro: %v", err)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("run carteiro %v: %v", args, err)
	}
	return code, out.String(), errOut.String()
}

// TestCLISendReachesSMTP: `carteiro send` posts through a running server's
// API with the key from CARTEIRO_API_KEY; the email reaches the SMTP relay.
// --test is the sandbox (nothing delivered) and an API error exits 1 with
// the envelope's code.
func TestCLISendReachesSMTP(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		htmlFile := filepath.Join(t.TempDir(), "body.html")
		testserver.Must(t, os.WriteFile(htmlFile, []byte("<p>Olá from the command line</p>"), 0o600) == nil, "write html")
		env := []string{"CARTEIRO_API_KEY=" + ts.LiveKey, "CARTEIRO_API_URL=" + ts.URL}

		code, out, errOut := runCLI(t, env, "send", "--from", "Loja <orders@shop.example>", "--to", "ana@customer.example",
			"--to", "bia@customer.example", "--subject", "CLI pedido", "--html", htmlFile, "--text", "Olá", "--json")
		testserver.Must(t, code == 0, "send: exit %d %s", code, errOut)
		var res struct{ ID, Status string }
		testserver.Must(t, json.Unmarshal([]byte(out), &res) == nil && res.ID != "" && res.Status == "queued", "send --json printed %q", out)

		msgs, err := smtp.WaitForMessages(2, 10*time.Second)
		testserver.Must(t, err == nil, "the email did not reach the SMTP server: %v", err)
		for _, m := range msgs {
			msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
			testserver.Must(t, err == nil, "parse: %v", err)
			testserver.Must(t, msg.Header.Get("Subject") == "CLI pedido" && msg.Header.Get("Message-Id") == "<"+res.ID+"@shop.example>",
				"headers %v", msg.Header)
			testserver.Must(t, bytes.Contains(m.Data, []byte("from the command line")), "HTML body missing: %s", m.Data)
		}
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")

		// --test: the sandbox accepts and delivers nothing.
		smtp.Reset()
		code, out, errOut = runCLI(t, env, "send", "--from", "orders@shop.example", "--to", "ana@customer.example",
			"--subject", "sandboxed", "--text", "t", "--test")
		testserver.Must(t, code == 0 && strings.HasPrefix(out, "email ") && strings.Contains(out, " queued"), "send --test: exit %d %q %s", code, out, errOut)
		sandboxID := strings.Fields(out)[1]
		waitStatus(t, ts, ts.LiveKey, sandboxID, "delivered")
		testserver.Must(t, len(smtp.Messages()) == 0, "--test delivered %d messages", len(smtp.Messages()))

		// An API error: exit 1, the envelope's code on stderr, nothing sent.
		code, _, errOut = runCLI(t, env, "send", "--from", "x@unverified.example", "--to", "ana@customer.example",
			"--subject", "s", "--text", "t")
		testserver.Must(t, code == 1 && strings.Contains(errOut, "HTTP 403 DOMAIN_NOT_VERIFIED"), "unverified sender: exit %d %q", code, errOut)
		// A wrong key: 401, exit 1.
		code, _, errOut = runCLI(t, []string{"CARTEIRO_API_KEY=svc_live_wrong", "CARTEIRO_API_URL=" + ts.URL}, "send",
			"--from", "orders@shop.example", "--to", "ana@customer.example", "--subject", "s", "--text", "t")
		testserver.Must(t, code == 1 && strings.Contains(errOut, "HTTP 401"), "wrong key: exit %d %q", code, errOut)
		// No key at all: a usage error, before any request.
		code, _, errOut = runCLI(t, []string{"CARTEIRO_API_URL=" + ts.URL}, "send",
			"--from", "orders@shop.example", "--to", "ana@customer.example", "--subject", "s", "--text", "t")
		testserver.Must(t, code == 2 && strings.Contains(errOut, "CARTEIRO_API_KEY"), "no key: exit %d %q", code, errOut)
		testserver.Must(t, len(smtp.Messages()) == 0, "failed sends delivered %d messages", len(smtp.Messages()))
	})
}
