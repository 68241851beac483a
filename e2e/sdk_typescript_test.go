package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// tsClientDir is the TypeScript client (issue 29); .ci/run installs its
// pinned dependencies with npm ci and builds dist/ before the Go tests.
const tsClientDir = "../sdk/typescript"

// tsClient returns the path of node when the client is installed and built.
// Without them it fails the test when CI=true and skips it elsewhere.
func tsClient(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	for _, need := range []string{"node_modules/openapi-fetch/package.json", "node_modules/typescript/package.json", "dist/index.js"} {
		if err == nil {
			if _, statErr := os.Stat(filepath.Join(tsClientDir, need)); statErr != nil {
				err = statErr
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the TypeScript client cannot run and CI=true, so this test fails rather than skips: run `npm ci && npm run build` in sdk/typescript: %v", err)
		}
		t.Skipf("TypeScript client not installed or built (npm ci && npm run build in sdk/typescript): %v", err)
	}
	return node
}

// runNodeTests runs `node --test dir` in the client and fails unless every
// test passed and at least minPass did (a run that loads no test passes
// nothing).
func runNodeTests(t *testing.T, node, dir string, minPass int, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=tap", dir)
	cmd.Dir = tsClientDir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	pass, fail := tapCount(out.String(), "pass"), tapCount(out.String(), "fail")
	if err != nil || fail != 0 || pass < minPass {
		t.Fatalf("node --test %s: %v; %d passed (want at least %d), %d failed:\n%s", dir, err, pass, minPass, fail, out.String())
	}
	t.Logf("node --test %s: %d passed", dir, pass)
}

// tapCount reads the "# pass N" or "# fail N" summary line of node's TAP report.
func tapCount(report, what string) int {
	m := regexp.MustCompile(`(?m)^# ` + what + ` (\d+)$`).FindStringSubmatch(report)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

// TestTypeScriptClientOffline: the client's own tests that need no server:
// the committed types are what openapi-typescript makes of
// docs/openapi.yaml, tsc rejects a misspelled field in a send and accepts
// template variables, retries honour Retry-After against a scripted local
// server, and webhook verification passes the Standard Webhooks test
// vector.
func TestTypeScriptClientOffline(t *testing.T) {
	t.Parallel()
	node := tsClient(t)
	runNodeTests(t, node, "test/offline/", 20)
}

// TestTypeScriptClientLive runs the client's live tests against the real
// server on both stores: sends with idempotency keys, typed errors, list
// iteration over cursor pages, a batch, webhook deliveries that a real
// HTTPS receiver captured, verified by the client with both signature
// schemes (D48, D76) and refused after one byte changes, and the messages
// the inbound listener received (D75).
func TestTypeScriptClientLive(t *testing.T) {
	t.Parallel()
	node := tsClient(t)
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts := testserver.StartServer(t, b, map[string]string{
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
			"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0", "CARTEIRO_INBOUND_HOST": inboundMX,
		})
		captured := httptest.NewServer(capturedDeliveries(rcv))
		t.Cleanup(captured.Close)
		receiveTwoForTypeScript(t, ts)
		runNodeTests(t, node, "test/live/", 8,
			"CARTEIRO_URL="+ts.URL,
			"CARTEIRO_KEY="+ts.TestKey,
			"CARTEIRO_LIVE_KEY="+ts.LiveKey,
			"CARTEIRO_HOOK_URL="+rcv.URL()+"/hooks",
			"CARTEIRO_DELIVERIES_URL="+captured.URL,
			"CARTEIRO_INBOUND_DOMAIN="+tsInboundDomain,
		)
	})
}

// tsInboundDomain receives the messages the TypeScript live tests read.
const tsInboundDomain = "inbox.example"

// receiveTwoForTypeScript turns inbound on for tsInboundDomain and
// receives two replies through the listener over SMTP, one after the
// other, each with a PDF attachment, so that the client has messages to
// list, read and delete.
func receiveTwoForTypeScript(t *testing.T, ts *testserver.TestServer) {
	t.Helper()
	d := createDomain(t, ts, ts.LiveKey, tsInboundDomain)
	publish(ts, d)
	testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "%s not verified", tsInboundDomain)
	enableInbound(t, ts, ts.LiveKey, d.ID, true)
	ts.DNS.SetMX(tsInboundDomain, testutil.MX{Host: inboundMX + ".", Pref: 10})
	ts.DNS.SetA(inboundMX, "127.0.0.1")
	addr := (&inboundRig{ts: ts}).mxAddr(t, tsInboundDomain)
	for i, to := range []string{"support@" + tsInboundDomain, "sales@" + tsInboundDomain} {
		raw := receivedMessage(to, "ts-"+strconv.Itoa(i)+"@sender.example", "", []byte("%PDF-1.4 nota fiscal"))
		err := sendSMTP(addr, "mta.sender.example", "joao@sender.example", []string{to}, raw)
		testserver.Must(t, err == nil, "send to %s: %v", to, err)
		rig := &inboundRig{ts: ts}
		waitFor(t, func() bool { return len(rig.inboundTo(t, to)) == 1 })
	}
}

// capturedDeliveries answers the requests rcv received so far as JSON:
// [{"headers": {lower-case name: value}, "body": base64 of the raw body}].
func capturedDeliveries(rcv *testutil.TLSReceiver) http.HandlerFunc {
	type delivery struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		out := []delivery{}
		for _, req := range rcv.Requests() {
			d := delivery{Headers: map[string]string{}, Body: base64.StdEncoding.EncodeToString(req.Body)}
			for name, values := range req.Header {
				d.Headers[strings.ToLower(name)] = strings.Join(values, ", ")
			}
			out = append(out, d)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}
}
