package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// nodeVerifierDir holds verify.js and the pinned official Node library
// (standardwebhooks 1.1.1); .ci/run installs it with npm ci.
const nodeVerifierDir = "testdata/stdwebhooks-node"

// errRefused is a verifier's "this delivery is not authentic", as opposed
// to a verifier that could not run.
var errRefused = errors.New("refused")

// stdVerifier verifies a delivery as a receiver using an official Standard
// Webhooks library does (D76).
type stdVerifier func(t *testing.T, secret string, raw bool, h http.Header, body []byte) error

// verifyWithGoLibrary uses the official Go library: NewWebhook for a
// whsec_<base64> secret, NewWebhookRaw for the bytes of any other.
func verifyWithGoLibrary(t *testing.T, secret string, raw bool, h http.Header, body []byte) error {
	t.Helper()
	var wh *standardwebhooks.Webhook
	var err error
	if raw {
		wh, err = standardwebhooks.NewWebhookRaw([]byte(secret))
	} else {
		wh, err = standardwebhooks.NewWebhook(secret)
	}
	if err != nil {
		t.Fatalf("Go library refuses the secret %q: %v", secret, err)
	}
	if err := wh.Verify(body, h); err != nil {
		return fmt.Errorf("%w: %v", errRefused, err)
	}
	return nil
}

// nodeVerifier returns a verifier running verify.js with the official Node
// library. Without node or the installed library it fails the test when
// CI=true; elsewhere it returns nil, so the Go library still runs.
func nodeVerifier(t *testing.T) stdVerifier {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeVerifierDir, "node_modules", "standardwebhooks", "package.json"))
		if err != nil {
			err = fmt.Errorf("run `npm ci` in e2e/%s: %w", nodeVerifierDir, err)
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the official Node library cannot run and CI=true, so this test fails rather than skips it: %v", err)
		}
		t.Logf("NOT verifying with the official Node library: %v", err)
		return nil
	}
	return func(t *testing.T, secret string, raw bool, h http.Header, body []byte) error {
		t.Helper()
		headers := map[string]string{}
		for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			headers[name] = h.Get(name)
		}
		input, err := json.Marshal(map[string]any{
			"secret": secret, "raw": raw, "headers": headers, "body": base64.StdEncoding.EncodeToString(body),
		})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, "verify.js")
		cmd.Dir = nodeVerifierDir
		cmd.Stdin = bytes.NewReader(input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &exit) && exit.ExitCode() == 1:
			return fmt.Errorf("%w: %s", errRefused, strings.TrimSpace(stderr.String()))
		default:
			t.Fatalf("node verify.js could not run: %v: %s", err, stderr.String())
			return nil
		}
	}
}

// checkStandardSignature asserts that every verifier accepts the delivery
// and refuses it once one byte of the body changes.
func checkStandardSignature(t *testing.T, verifiers map[string]stdVerifier, req testutil.ReceivedRequest, secret string, raw bool) {
	t.Helper()
	testserver.Must(t, req.Header.Get("webhook-id") == req.Header.Get("X-Service-Event-Id") && req.Header.Get("webhook-id") != "",
		"webhook-id %q, event id %q", req.Header.Get("webhook-id"), req.Header.Get("X-Service-Event-Id"))
	flipped := bytes.Clone(req.Body)
	flipped[len(flipped)/2] ^= 0x01
	for name, verify := range verifiers {
		err := verify(t, secret, raw, req.Header, req.Body)
		testserver.Must(t, err == nil, "%s library refuses a real delivery (webhook-signature %q): %v", name, req.Header.Get("webhook-signature"), err)
		err = verify(t, secret, raw, req.Header, flipped)
		testserver.Must(t, errors.Is(err, errRefused), "%s library did not refuse a body with a flipped byte: %v", name, err)
	}
}

// TestD76DeliveriesVerifyWithOfficialLibraries: deliveries the real HTTPS
// receiver captured verify with the official Standard Webhooks libraries for
// Go and Node, both for a customer's own secret (raw key) and for a secret
// the service generated (whsec_<base64>), and fail after one body byte
// changes. The D48 signatures still verify beside them.
func TestD76DeliveriesVerifyWithOfficialLibraries(t *testing.T) {
	t.Parallel()
	verifiers := map[string]stdVerifier{"Go": verifyWithGoLibrary}
	if node := nodeVerifier(t); node != nil {
		verifiers["Node"] = node
	}
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts := webhookServer(t, b, rcv)
		secret := "s3cret-s3cret-s3cret"
		id := createHook(t, ts, rcv.URL()+"/hooks", []string{"email.sent"}, secret)["id"].(string)

		send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "standard", "text": "t"})
		reqs, err := rcv.WaitForRequests(1, 10*time.Second)
		testserver.Must(t, err == nil, "webhook did not arrive: %v", err)
		testserver.Must(t, receiverVerify(reqs[0], secret, time.Now()) == nil, "D48 signatures: %v", receiverVerify(reqs[0], secret, time.Now()))
		checkStandardSignature(t, verifiers, reqs[0], secret, true)

		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks/" + id + "/rotate-secret", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		generated := r.JSON(t)["secret"].(string)
		rcv.Reset()
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks/" + id + "/test", Key: ts.LiveKey, Body: map[string]string{"eventType": "email.sent"}})
		testserver.Expect(t, r, http.StatusAccepted, "")
		reqs, err = rcv.WaitForRequests(1, 10*time.Second)
		testserver.Must(t, err == nil, "test event did not arrive: %v", err)
		testserver.Must(t, receiverVerify(reqs[0], generated, time.Now()) == nil, "D48 signatures: %v", receiverVerify(reqs[0], generated, time.Now()))
		checkStandardSignature(t, verifiers, reqs[0], generated, false)
		for name, verify := range verifiers {
			err := verify(t, secret, true, reqs[0].Header, reqs[0].Body)
			testserver.Must(t, errors.Is(err, errRefused), "%s library verified with the secret rotated away: %v", name, err)
		}
	})
}
