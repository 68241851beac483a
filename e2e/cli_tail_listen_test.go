package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/sdk/go/carteiro/webhook"
)

// cliStream is the real carteiro binary running a long-lived command
// (emails tail, webhook listen), its output read line by line.
type cliStream struct {
	stdout, stderr chan string
	mu             sync.Mutex
	log            strings.Builder // both outputs, for failure messages
}

// output is everything the command printed so far.
func (s *cliStream) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// startCLI starts the binary with only the given environment; the test's
// end interrupts it, as Ctrl-C would, and checks that it exits cleanly.
func startCLI(t *testing.T, env []string, args ...string) *cliStream {
	t.Helper()
	bin, err := buildBinary()
	testserver.Must(t, err == nil, "build carteiro: %v", err)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	outPipe, err := cmd.StdoutPipe()
	testserver.Must(t, err == nil, "stdout: %v", err)
	errPipe, err := cmd.StderrPipe()
	testserver.Must(t, err == nil, "stderr: %v", err)
	testserver.Must(t, cmd.Start() == nil, "start carteiro %v", args)
	s := &cliStream{stdout: make(chan string, 1000), stderr: make(chan string, 1000)}
	var readers sync.WaitGroup
	for pipe, ch := range map[io.Reader]chan string{outPipe: s.stdout, errPipe: s.stderr} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer close(ch)
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				s.mu.Lock()
				s.log.WriteString(sc.Text() + "\n")
				s.mu.Unlock()
				ch <- sc.Text()
			}
		}()
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { readers.Wait(); done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("carteiro %v did not exit cleanly on an interrupt: %v", args, err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("carteiro %v still running 10 s after an interrupt", args)
		}
	})
	return s
}

// waitLine returns the first line of s's stdout (or stderr) that match
// accepts, within 30 s.
func waitLine(t *testing.T, s *cliStream, stderr bool, what string, match func(string) bool) string {
	ch := s.stdout
	if stderr {
		ch = s.stderr
	}
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, open := <-ch:
			if !open {
				t.Fatalf("the command ended before printing %s; it printed:\n%s", what, s.output())
			}
			if match(line) {
				return line
			}
		case <-deadline:
			t.Fatalf("no %s within 30 s; the command printed:\n%s", what, s.output())
		}
	}
}

// TestCLIEmailsTail: `carteiro emails tail` shows an email sent after it
// started and then each event of its timeline, as JSON lines and as text.
func TestCLIEmailsTail(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _, _ := relayServer(t, b, nil)
		env := []string{"CARTEIRO_API_KEY=" + ts.LiveKey, "CARTEIRO_API_URL=" + ts.URL}
		old := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "old@customer.example", "subject": "before", "text": "t"})
		waitStatus(t, ts, ts.LiveKey, old.ID, "delivered")
		asJSON := startCLI(t, env, "emails", "tail", "--json", "--interval", "200ms")
		asText := startCLI(t, env, "emails", "tail", "--interval", "200ms")
		// The banner comes once the emails that exist (the old one) are
		// known: they must not show.
		for _, s := range []*cliStream{asJSON, asText} {
			waitLine(t, s, true, "the banner", func(l string) bool { return strings.Contains(l, "Watching") })
		}

		res := send(t, ts, ts.LiveKey, map[string]any{"from": "Loja <orders@shop.example>", "to": "ana@customer.example",
			"subject": "Seu pedido", "text": "t"})

		type line struct {
			Kind    string `json:"kind"`
			EmailID string `json:"emailId"`
			Email   struct{ ID, From, Subject string }
			Event   struct{ Type string }
		}
		first := waitLine(t, asJSON, false, "the new email", func(string) bool { return true })
		var l line
		testserver.Must(t, json.Unmarshal([]byte(first), &l) == nil, "not JSON: %q", first)
		testserver.Must(t, l.Kind == "email" && l.Email.ID == res.ID && l.Email.Subject == "Seu pedido" && l.Email.From == "Loja <orders@shop.example>",
			"the first line is not the new email (the old one must not show): %s", first)
		var types []string
		for !strings.Contains(strings.Join(types, ","), "delivered") {
			raw := waitLine(t, asJSON, false, "the delivered event", func(string) bool { return true })
			testserver.Must(t, json.Unmarshal([]byte(raw), &l) == nil && l.Kind == "event" && l.EmailID == res.ID, "line %s", raw)
			types = append(types, l.Event.Type)
		}
		testserver.Must(t, strings.HasPrefix(strings.Join(types, ","), "queued,") && strings.Contains(strings.Join(types, ","), "sent"),
			"events in order: %v", types)

		emailLine := waitLine(t, asText, false, "the email line", func(l string) bool { return strings.Contains(l, res.ID) })
		testserver.Must(t, strings.Contains(emailLine, " email ") && strings.Contains(emailLine, `"Seu pedido"`) &&
			strings.Contains(emailLine, "ana@customer.example"), "text line %q", emailLine)
		waitLine(t, asText, false, "the delivered line", func(l string) bool {
			return strings.Contains(l, " delivered ") && strings.Contains(l, res.ID)
		})

		// A wrong key ends at once with the API's error (exit 1); a wrong
		// command line is a usage error (exit 2).
		code, _, errOut := runCLI(t, []string{"CARTEIRO_API_KEY=svc_live_wrong", "CARTEIRO_API_URL=" + ts.URL}, "emails", "tail")
		testserver.Must(t, code == 1 && strings.Contains(errOut, "HTTP 401 INVALID_API_KEY"), "wrong key: exit %d %q", code, errOut)
		code, _, errOut = runCLI(t, env, "webhook", "listen")
		testserver.Must(t, code == 2 && strings.Contains(errOut, "--forward-to"), "listen without --forward-to: exit %d %q", code, errOut)
	})
}

// TestCLIWebhookListen: `carteiro webhook listen` forwards the events of an
// email sent while it runs to a local HTTP server, signed with the secret
// it printed; the server verifies them with the SDK and with the official
// Standard Webhooks library, and a changed byte fails. --events filters.
func TestCLIWebhookListen(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, _, _ := relayServer(t, b, nil)
		env := []string{"CARTEIRO_API_KEY=" + ts.LiveKey, "CARTEIRO_API_URL=" + ts.URL}

		type delivery struct {
			header http.Header
			body   []byte
		}
		got := make(chan delivery, 100)
		app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			got <- delivery{r.Header.Clone(), body}
			w.WriteHeader(http.StatusAccepted)
		}))
		t.Cleanup(app.Close)

		listen := startCLI(t, env, "webhook", "listen", "--forward-to", app.URL+"/hooks", "--events", "email.delivered",
			"--json", "--interval", "200ms")
		banner := waitLine(t, listen, true, "the secret", func(l string) bool { return strings.Contains(l, "whsec_") })
		secret := regexp.MustCompile(`whsec_[0-9A-Za-z]{32}`).FindString(banner)
		testserver.Must(t, secret != "", "no secret in %q", banner)

		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "ana@customer.example", "subject": "relayed", "text": "t",
			"tags": []map[string]string{{"name": "k", "value": "v"}}})
		var d delivery
		select {
		case d = <-got:
		case <-time.After(30 * time.Second):
			t.Fatalf("no event reached the local app within 30 s; listen printed:\n%s", listen.output())
		}
		ev, err := webhook.ConstructEvent(d.body, d.header, secret)
		testserver.Must(t, err == nil, "the SDK refuses the relayed event: %v\n%s", err, d.body)
		testserver.Must(t, ev.Type == "email.delivered" && ev.Data["emailId"] == res.ID && ev.Data["subject"] == "relayed" &&
			ev.Data["recipient"] == "ana@customer.example" && ev.ID == d.header.Get("webhook-id"), "event %+v", ev)
		wh, err := standardwebhooks.NewWebhook(secret)
		testserver.Must(t, err == nil, "official library: %v", err)
		testserver.Must(t, wh.Verify(d.body, d.header) == nil, "the official library refuses the relayed event")
		flipped := append([]byte(nil), d.body...)
		flipped[len(flipped)/2] ^= 0x01
		testserver.Must(t, wh.Verify(flipped, d.header) != nil && webhook.Verify(flipped, d.header, secret) != nil, "a flipped byte verified")

		out := waitLine(t, listen, false, "the forwarded line", func(string) bool { return true })
		var f struct {
			ID, Type, EmailID string
			Status            int
		}
		testserver.Must(t, json.Unmarshal([]byte(out), &f) == nil && f.ID == ev.ID && f.Type == "email.delivered" && f.EmailID == res.ID && f.Status == 202,
			"listen printed %q", out)
		// --events email.delivered: nothing else (queued, sent) was forwarded.
		select {
		case extra := <-got:
			t.Fatalf("an event outside --events was forwarded: %s", extra.body)
		case <-time.After(time.Second):
		}
	})
}
