package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// Issue 24 (item 9): the README's tour runs as written. docs/tour.sh holds
// its commands; this runs the script against a real server, with the relay
// of step 5 and an HTTPS receiver for step 6's webhook, and the script
// checks every status. The two things a reader does by hand, publishing the
// domain's records and reading the sender's token in their catcher (D59),
// the script asks of the hook server below, which does them with the
// in-process DNS server and the relay's received mail.
func TestTourScriptRunsAsWritten(t *testing.T) {
	t.Parallel()
	bash := lookTool(t, "bash")
	lookTool(t, "curl")
	script, err := filepath.Abs("../docs/tour.sh")
	testserver.Must(t, err == nil, "script path: %v", err)
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		smtp := testutil.NewSMTPServer(t)
		ts := testserver.StartServer(t, b, map[string]string{
			"CARTEIRO_DELIVERY":              "relay",
			"CARTEIRO_RELAY_URL":             "smtp+plain://" + smtp.Addr(),
			"CARTEIRO_SMTP_TIMEOUT":          "2s",
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true",
			"CARTEIRO_WEBHOOK_CA_FILE":       rcv.CAFile(),
		})
		hooks := httptest.NewServer(tourHooks(ts, smtp))
		t.Cleanup(hooks.Close)

		cmd := exec.Command(bash, script)
		// Only what the script needs: no proxy settings or ~/.curlrc of
		// the machine may send its requests anywhere but to 127.0.0.1.
		home := t.TempDir()
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"),
			"HOME=" + home,
			"TMPDIR=" + home,
			"API=" + ts.URL + "/v1/product",
			"KEY=" + ts.LiveKey,
			"TEST_KEY=" + ts.TestKey,
			"HOOK_URL=" + rcv.URL() + "/carteiro",
			"TOUR_HOOK_URL=" + hooks.URL,
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("docs/tour.sh failed (%v); its output:\n%s", err, out)
		}
		t.Logf("docs/tour.sh:\n%s", out)

		// What the README says follows: the relay got Ana's and Carla's
		// mail but not Bob's (step 7), and the webhook got email.suppressed.
		msgs, err := smtp.WaitForMessages(3, 10*time.Second)
		testserver.Must(t, err == nil, "relay: %v", err)
		var to []string
		for _, m := range msgs {
			to = append(to, m.To...)
		}
		testserver.Must(t, slices.Contains(to, "ana@example.net") && slices.Contains(to, "carla@example.net"), "relay got mail for %v", to)
		testserver.Must(t, !slices.Contains(to, "bob@example.net"), "the suppressed address got mail: %v", to)
		waitForHookEvent(t, rcv, "email.suppressed")
	})
}

// lookTool finds a program the tour needs; missing, the test fails in CI
// (.ci/run installs it) and is skipped elsewhere.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	testserver.RequireService(t, name+" (docs/tour.sh runs it)", err)
	return path
}

// tourHooks answers docs/tour.sh's TOUR_HOOK_URL: /publish-dns?domain=ID
// publishes the records GET /domains/{id} lists, as a reader does at their
// DNS provider; /sender-token?email=E prints the token of the verification
// email the relay received for E, as a reader finds it in their catcher.
// It uses plain HTTP, not ts.Do: a handler goroutine must not stop the test.
func tourHooks(ts *testserver.TestServer, smtp *testutil.SMTPServer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /publish-dns", func(w http.ResponseWriter, r *http.Request) {
		if err := publishListedRecords(ts, r.URL.Query().Get("domain")); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /sender-token", func(w http.ResponseWriter, r *http.Request) {
		token, err := mailedSenderToken(ts, smtp, r.URL.Query().Get("email"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, token)
	})
	return mux
}

// publishListedRecords puts the domain's dnsRecordsToPublish in the test DNS.
func publishListedRecords(ts *testserver.TestServer, id string) error {
	req, err := http.NewRequest(http.MethodGet, ts.URL+"/v1/product/domains/"+id, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+ts.LiveKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var d struct {
		Records []struct{ Type, Host, Value string } `json:"dnsRecordsToPublish"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET domain %s: status %d, %v", id, resp.StatusCode, err)
	}
	for _, rec := range d.Records {
		switch rec.Type {
		case "TXT":
			ts.DNS.SetTXT(rec.Host, rec.Value)
		case "CNAME":
			ts.DNS.SetCNAME(rec.Host, rec.Value)
		default:
			return fmt.Errorf("record type %s: the tour test cannot publish it", rec.Type)
		}
	}
	return nil
}

// mailedSenderToken waits for the verification email to address and returns
// the token its confirmation link ends with (D59).
func mailedSenderToken(ts *testserver.TestServer, smtp *testutil.SMTPServer, address string) (string, error) {
	link := regexp.MustCompile(regexp.QuoteMeta(ts.Config.PublicURL) + `/senders/confirm/([0-9a-f-]{36})`)
	for n := 1; ; n++ {
		msgs, err := smtp.WaitForMessages(n, 10*time.Second)
		if err != nil {
			return "", fmt.Errorf("no verification email to %s: %w", address, err)
		}
		m := msgs[n-1]
		if slices.Contains(m.To, address) {
			if match := link.FindSubmatch(m.Data); match != nil {
				return string(match[1]), nil
			}
		}
	}
}

// waitForHookEvent waits until the receiver got an event of the type.
func waitForHookEvent(t *testing.T, rcv *testutil.TLSReceiver, eventType string) {
	t.Helper()
	want := []byte(`"type":"` + eventType + `"`)
	for n := 1; ; n++ {
		reqs, err := rcv.WaitForRequests(n, 10*time.Second)
		testserver.Must(t, err == nil, "the webhook never got %s: %v", eventType, err)
		if bytes.Contains(reqs[n-1].Body, want) {
			return
		}
	}
}

// tourExemption is a README tour command docs/tour.sh does not run as
// written, and why.
type tourExemption struct {
	command *regexp.Regexp
	why     string
}

var tourExemptions = []tourExemption{
	{regexp.MustCompile(`^(CARTEIRO_\w+=\S+ )*go run \./cmd/carteiro serve$`), "the test starts the server, already with step 5's relay"},
	{regexp.MustCompile(`^export (TEST_)?KEY=`), "the first start's keys come from the test's server"},
	{regexp.MustCompile(`^API=`), "the address comes from the test's server"},
	{regexp.MustCompile(`^TOKEN=`), "the reader copies the token from their catcher; the script's sender_token gets it"},
	{regexp.MustCompile(`^HOOK_URL=`), "the reader's endpoint; the test gives its own HTTPS receiver"},
}

// tourExempt says why command is not in the script, or "" when it must be.
func tourExempt(command string) string {
	for _, e := range tourExemptions {
		if e.command.MatchString(command) {
			return e.why
		}
	}
	return ""
}

// TestTourScriptHasTheREADMECommands keeps README.md and docs/tour.sh
// together (issue 24, item 9): every command of the README's tour is a line
// of the script, in the README's order, and no command uses an id pasted
// from an earlier run.
func TestTourScriptHasTheREADMECommands(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	testserver.Must(t, err == nil, "read README: %v", err)
	raw, err := os.ReadFile("../docs/tour.sh")
	testserver.Must(t, err == nil, "read script: %v", err)
	script := shellLines(strings.Split(string(raw), "\n"))

	commands := tourCommands(t, string(readme))
	testserver.Must(t, len(commands) >= 30, "found only %d commands in the README's tour: is the section still \"## A tour\"?", len(commands))
	pastedID := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	next := 0
	for _, c := range commands {
		if why := tourExempt(c); why != "" {
			t.Logf("not in the script as written (%s): %s", why, c)
			continue
		}
		if pastedID.MatchString(c) {
			t.Errorf("the README's tour pastes an id; capture it with idof instead: %s", c)
		}
		at := slices.Index(script[next:], c)
		if at < 0 {
			t.Errorf("a command of the README's tour is not in docs/tour.sh (after the commands before it):\n%s", c)
			continue
		}
		next += at + 1
	}
}

// tourCommands returns the commands of README.md's "## A tour" section:
// every line of its sh blocks (continuations joined, comments and blank
// lines left out) and the "$ " lines of its text blocks.
func tourCommands(t *testing.T, readme string) []string {
	t.Helper()
	_, tour, ok := strings.Cut(readme, "\n## A tour\n")
	testserver.Must(t, ok, "README.md has no \"## A tour\" section")
	tour, _, _ = strings.Cut(tour, "\n## ")
	var commands, block []string
	lang, inBlock := "", false
	for _, line := range strings.Split(tour, "\n") {
		if strings.HasPrefix(line, "```") {
			if inBlock {
				switch lang {
				case "sh":
					commands = append(commands, shellLines(block)...)
				case "text":
					for _, l := range block {
						if c, ok := strings.CutPrefix(l, "$ "); ok {
							commands = append(commands, strings.TrimSpace(c))
						}
					}
				}
				block = nil
			}
			inBlock, lang = !inBlock, strings.TrimPrefix(line, "```")
			continue
		}
		if inBlock {
			block = append(block, line)
		}
	}
	return commands
}

// shellLines joins continued lines (a trailing backslash) into one and
// drops blank and comment-only lines.
func shellLines(lines []string) []string {
	var out []string
	current := ""
	for _, line := range lines {
		line = strings.TrimRight(line, " \t")
		if current != "" {
			line = current + " " + strings.TrimLeft(line, " \t")
		}
		if joined, ok := strings.CutSuffix(line, "\\"); ok {
			current = strings.TrimRight(joined, " \t")
			continue
		}
		current = ""
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, line)
		}
	}
	return out
}
