package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// receiverVerify checks both signatures as a customer's receiver would,
// with its own HMAC code (D48).
func receiverVerify(req testutil.ReceivedRequest, secret string, now time.Time) error {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(req.Body)
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(req.Header.Get("X-Service-Signature"))) {
		return fmt.Errorf("X-Service-Signature does not verify")
	}
	var ts, v1 string
	for _, part := range strings.Split(req.Header.Get("X-Service-Signature-V2"), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)) > 300*time.Second {
		return fmt.Errorf("X-Service-Signature-V2 timestamp %q too old or bad", ts)
	}
	mac = hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(req.Body)
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(v1)) {
		return fmt.Errorf("X-Service-Signature-V2 does not verify")
	}
	return nil
}

type hookPayload struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt string         `json:"createdAt"`
	Data      map[string]any `json:"data"`
}

func webhookServer(t *testing.T, b testserver.Backend, rcv *testutil.TLSReceiver) *testserver.TestServer {
	return testserver.StartServer(t, b, map[string]string{
		"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
	})
}

func createHook(t *testing.T, ts *testserver.TestServer, url string, events []string, secret string) map[string]any {
	t.Helper()
	body := map[string]any{"url": url, "events": events}
	if secret != "" {
		body["secret"] = secret
	}
	r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.LiveKey, Body: body})
	testserver.Expect(t, r, http.StatusCreated, "")
	return r.JSON(t)
}

var allEvents = []string{"email.sent", "email.delivered", "email.bounced", "email.complained", "email.opened",
	"email.clicked", "email.failed", "email.suppressed", "email.delivery_delayed"}

func TestWebhooksAreSignedAndRecorded(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts := webhookServer(t, b, rcv)
		secret := "s3cret-s3cret-s3cret"
		hook := createHook(t, ts, rcv.URL()+"/hooks", allEvents, secret)
		id := hook["id"].(string)
		testserver.Must(t, hook["secret"] == nil && hook["secretPreview"] == "s3cr…", "create answer %v", hook)

		res := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "clicked@y.example", "subject": "hooks", "text": "t",
			"tags": []map[string]string{{"name": "k", "value": "v"}}})
		reqs, err := rcv.WaitForRequests(4, 10*time.Second)
		testserver.Must(t, err == nil, "webhooks did not arrive: %v", err)
		types := map[string]bool{}
		for _, req := range reqs {
			testserver.Must(t, receiverVerify(req, secret, time.Now()) == nil, "signature: %v", receiverVerify(req, secret, time.Now()))
			testserver.Must(t, receiverVerify(req, "wrong-secret-wrong", time.Now()) != nil, "a wrong secret verified")
			flipped := req
			flipped.Body = append([]byte(nil), req.Body...)
			flipped.Body[len(flipped.Body)/2] ^= 1
			testserver.Must(t, receiverVerify(flipped, secret, time.Now()) != nil, "a flipped body byte verified")
			testserver.Must(t, receiverVerify(req, secret, time.Now().Add(301*time.Second)) != nil, "a 301 s old timestamp verified")
			var p hookPayload
			testserver.Must(t, json.Unmarshal(req.Body, &p) == nil, "payload %s", req.Body)
			testserver.Must(t, p.ID == req.Header.Get("X-Service-Event-Id") && p.Data["emailId"] == res.ID && p.Data["subject"] == "hooks",
				"payload %s headers %v", req.Body, req.Header)
			types[p.Type] = true
		}
		for _, typ := range []string{"email.sent", "email.delivered", "email.opened", "email.clicked"} {
			testserver.Must(t, types[typ], "no %s webhook (got %v)", typ, types)
		}

		// Every attempt is recorded (the record commits just after the answer).
		var r *testserver.Response
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + id + "/deliveries?status=success", Key: ts.LiveKey})
			testserver.Expect(t, r, 200, "")
			if strings.Count(string(r.Body), `"status":"success"`) == 4 {
				break
			}
		}
		var ds struct {
			Deliveries []struct {
				Status         string `json:"status"`
				ResponseStatus *int   `json:"responseStatus"`
				Attempts       int    `json:"attempts"`
				EventType      string `json:"eventType"`
			} `json:"deliveries"`
		}
		r.Decode(t, &ds)
		testserver.Must(t, len(ds.Deliveries) == 4, "deliveries %s", r.Body)
		for _, d := range ds.Deliveries {
			testserver.Must(t, d.ResponseStatus != nil && *d.ResponseStatus == 200 && d.Attempts == 1, "delivery %+v", d)
		}
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + id + "/deliveries?eventType=email.clicked", Key: ts.LiveKey})
		testserver.Must(t, strings.Count(string(r.Body), `"eventType":"email.clicked"`) == 1, "eventType filter %s", r.Body)

		// After rotate-secret only the new secret verifies.
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks/" + id + "/rotate-secret", Key: ts.LiveKey})
		testserver.Expect(t, r, 200, "")
		newSecret := r.JSON(t)["secret"].(string)
		testserver.Must(t, strings.HasPrefix(newSecret, "whsec_") && len(newSecret) == 6+32, "secret %q", newSecret)
		rcv.Reset()
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks/" + id + "/test", Key: ts.LiveKey, Body: map[string]string{"eventType": "email.bounced"}})
		testserver.Expect(t, r, http.StatusAccepted, "")
		reqs, err = rcv.WaitForRequests(1, 10*time.Second)
		testserver.Must(t, err == nil, "test event did not arrive: %v", err)
		testserver.Must(t, receiverVerify(reqs[0], newSecret, time.Now()) == nil, "new secret does not verify")
		testserver.Must(t, receiverVerify(reqs[0], secret, time.Now()) != nil, "old secret still verifies")
		var p hookPayload
		_ = json.Unmarshal(reqs[0].Body, &p)
		testserver.Must(t, p.Type == "email.bounced" && p.Data["test"] == true, "test payload %s", reqs[0].Body)

		// Read, update, pause, delete.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks", Key: ts.LiveKey})
		testserver.Must(t, strings.Contains(string(r.Body), `"hasSecret":true`), "list %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "PUT", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey,
			Body: map[string]any{"events": []string{"email.bounced"}, "description": "bounces only"}})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["description"] == "bounces only" && r.JSON(t)["secret"] == nil, "put %s", r.Body)
		r = ts.Do(t, testserver.Request{Method: "PUT", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey, Body: map[string]any{"description": nil}})
		testserver.Must(t, r.JSON(t)["description"] == nil, "null must clear the description: %s", r.Body)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "PUT", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey, Body: map[string]any{}}), 422, "VALIDATION_ERROR")
		r = ts.Do(t, testserver.Request{Method: "PATCH", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey, Body: map[string]any{"status": "paused"}})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["status"] == "paused", "patch %s", r.Body)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "PATCH", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey, Body: map[string]any{"status": "disabled"}}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey}), 204, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + id, Key: ts.LiveKey}), 404, "NOT_FOUND")
	})
}

// TestWebhookRetriesAndChaos is not parallel: it asserts that the healthy
// endpoint gets its delivery within 4 s while the others hang, which other
// tests' load on the CPU could stretch.
func TestWebhookRetriesAndChaos(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		var fail atomic.Int32
		fail.Store(2)
		flaky := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
			if fail.Add(-1) >= 0 {
				http.Error(w, strings.Repeat("boom ", 2000), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		gone := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) })
		redirect := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
		})
		limited := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		})
		hang := testutil.NewTLSReceiver(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(8 * time.Second):
			case <-r.Context().Done():
			}
		})
		healthy := testutil.NewTLSReceiver(t, nil)
		// Each receiver has its own CA; the server trusts them all.
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true",
			"CARTEIRO_WEBHOOK_CA_FILE": testutil.BundleCAs(t, flaky, gone, redirect, limited, hang, healthy)})
		hooks := map[string]string{}
		for name, rcv := range map[string]*testutil.TLSReceiver{"flaky": flaky, "gone": gone, "redirect": redirect, "limited": limited, "hang": hang} {
			hooks[name] = createHook(t, ts, rcv.URL(), []string{"email.delivered"}, "")["id"].(string)
		}
		for i := 0; i < 3; i++ {
			hooks["hang"+strconv.Itoa(i)] = createHook(t, ts, hang.URL(), []string{"email.delivered"}, "")["id"].(string)
		}
		hooks["healthy"] = createHook(t, ts, healthy.URL(), []string{"email.delivered"}, "")["id"].(string)

		start := time.Now()
		send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "ok@y.example", "subject": "chaos", "text": "t"})
		_, err := healthy.WaitForRequests(1, 10*time.Second)
		testserver.Must(t, err == nil, "healthy receiver got nothing: %v", err)
		testserver.Must(t, time.Since(start) < 4*time.Second, "a dead endpoint slowed a healthy one: %v", time.Since(start))

		delivery := func(name string) map[string]any {
			t.Helper()
			deadline := time.Now().Add(15 * time.Second)
			for time.Now().Before(deadline) {
				r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hooks[name] + "/deliveries", Key: ts.LiveKey})
				ds := r.JSON(t)["deliveries"].([]any)
				if len(ds) == 1 && ds[0].(map[string]any)["attempts"].(float64) > 0 {
					return ds[0].(map[string]any)
				}
				time.Sleep(50 * time.Millisecond)
			}
			t.Fatalf("%s: no attempt recorded", name)
			return nil
		}
		d := delivery("flaky")
		testserver.Must(t, d["status"] == "failed" && d["responseStatus"] == float64(500) && len(d["responseBody"].(string)) <= 4096, "flaky %v", d)
		next, _ := time.Parse(time.RFC3339Nano, d["nextRunAt"].(string))
		delay := next.Sub(ts.Clock.Now())
		testserver.Must(t, delay >= 5*time.Second && delay <= 6*time.Second, "first retry in %v, want 5 s + up to 10%% (D49)", delay)
		d = delivery("gone")
		testserver.Must(t, d["status"] == "exhausted", "410 delivery %v", d)
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hooks["gone"], Key: ts.LiveKey})
		testserver.Must(t, r.JSON(t)["status"] == "disabled", "410 must disable the webhook: %s", r.Body)
		d = delivery("redirect")
		testserver.Must(t, d["status"] == "failed" && d["responseStatus"] == float64(302), "302 %v", d)
		testserver.Must(t, len(redirect.Requests()) == 1, "redirect followed?")
		d = delivery("limited")
		next, _ = time.Parse(time.RFC3339Nano, d["nextRunAt"].(string))
		testserver.Must(t, next.Sub(ts.Clock.Now()) >= 120*time.Second, "Retry-After ignored: next in %v", next.Sub(ts.Clock.Now()))
		d = delivery("hang")
		testserver.Must(t, d["status"] == "failed" && d["lastError"] != nil, "hang %v", d)

		// The flaky endpoint succeeds on the third attempt (5 s, then 5 min).
		ts.Clock.Advance(6 * time.Second)
		waitDelivery(t, ts, hooks["flaky"], 2)
		ts.Clock.Advance(5*time.Minute + 31*time.Second)
		d = waitDelivery(t, ts, hooks["flaky"], 3)
		testserver.Must(t, d["status"] == "success", "third attempt %v", d)
	})
}

func waitDelivery(t *testing.T, ts *testserver.TestServer, hook string, attempts int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var d map[string]any
	for time.Now().Before(deadline) {
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/webhooks/" + hook + "/deliveries", Key: ts.LiveKey})
		ds := r.JSON(t)["deliveries"].([]any)
		if len(ds) > 0 {
			d = ds[0].(map[string]any)
			if d["attempts"].(float64) >= float64(attempts) {
				return d
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("webhook %s: delivery %v did not reach %d attempts", hook, d, attempts)
	return nil
}

func TestWebhookURLRules(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, nil) // D51 enforced
	ts.DNS.SetA("public.example", "93.184.215.14")
	ts.DNS.SetA("sneaky.example", "10.1.2.3")
	for _, u := range []string{
		"http://public.example/hook", "https://127.0.0.1/h", "https://127.1/h", "https://2130706433/h", "https://0x7f000001/h",
		"https://[::ffff:127.0.0.1]/h", "https://[::1]/h", "https://localhost/h", "https://10.0.0.1/h", "https://192.168.1.1/h",
		"https://169.254.169.254/latest", "https://100.64.0.1/h", "https://[fc00::1]/h", "https://sneaky.example/h", "not a url",
	} {
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.LiveKey, Body: map[string]any{"url": u, "events": []string{"email.sent"}}})
		if r.Status != 422 || !strings.Contains(string(r.Body), `"field":"url"`) {
			t.Errorf("%s: %d %s, want 422 on url", u, r.Status, r.Body)
		}
	}
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.LiveKey,
		Body: map[string]any{"url": "https://public.example/hook", "events": []string{"email.nope"}}}), 422, "VALIDATION_ERROR")
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.LiveKey,
		Body: map[string]any{"url": "https://public.example/hook", "events": []string{"email.sent"}, "secret": "short"}}), 422, "VALIDATION_ERROR")
	createHook(t, ts, "https://public.example/hook", []string{"email.sent"}, "")
}
