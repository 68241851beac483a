package carteiro_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/sdk/go/carteiro"
)

// These tests pin the client's own behaviour (retries, idempotency keys,
// errors, pages) against a scripted loopback server; e2e/sdk_test.go in the
// main module runs every method against the real Carteiro.

type recorded struct {
	method, path, query, idempotencyKey string
}

// scripted answers the i-th request with answers[i] (the last one repeats).
func scripted(t *testing.T, answers ...func(w http.ResponseWriter, r *http.Request)) (*carteiro.Client, func() []recorded) {
	t.Helper()
	var mu sync.Mutex
	var seen []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := len(seen)
		seen = append(seen, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Idempotency-Key")})
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer svc_test_k" {
			t.Errorf("Authorization %q", r.Header.Get("Authorization"))
		}
		answers[min(i, len(answers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	c := carteiro.NewClient("svc_test_k", carteiro.WithBaseURL(srv.URL),
		carteiro.WithRetryPolicy(carteiro.RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxWait: 2 * time.Second}))
	return c, func() []recorded { mu.Lock(); defer mu.Unlock(); return append([]recorded(nil), seen...) }
}

func status(code int, retryAfter string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("X-Request-Id", "req-1")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"code":"X_%d","message":"m","details":{}}}`, code)
	}
}

func accepted(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprint(w, `{"id":"e1","status":"queued","queuedAt":"2026-11-27T10:00:00Z"}`)
}

// A send retried after 429 (Retry-After) and 503 carries the same
// idempotency key each time, so the server sends it once (D22).
func TestSendRetriesWithOneIdempotencyKey(t *testing.T) {
	c, seen := scripted(t, status(429, "1"), status(503, ""), accepted)
	start := time.Now()
	res, err := c.Emails.Send(context.Background(), &carteiro.SendEmailRequest{From: "a@x.example", To: []string{"b@y.example"}, Subject: "s", Text: "t"})
	if err != nil || res.ID != "e1" {
		t.Fatalf("send: %v %+v", err, res)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("Retry-After: 1 not honoured: answered after %v", waited)
	}
	reqs := seen()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for _, r := range reqs {
		if r.idempotencyKey == "" || r.idempotencyKey != reqs[0].idempotencyKey {
			t.Fatalf("idempotency keys differ: %+v", reqs)
		}
	}
	// A second send has a key of its own.
	c2, seen2 := scripted(t, accepted)
	for range 2 {
		if _, err := c2.Emails.Send(context.Background(), &carteiro.SendEmailRequest{From: "a@x.example", To: []string{"b@y.example"}, Text: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if r := seen2(); r[0].idempotencyKey == r[1].idempotencyKey {
		t.Errorf("two sends shared the key %q", r[0].idempotencyKey)
	}
}

// A POST without an idempotency key is not repeated after a 500 (it may
// have taken effect); a 429 is, since the server did nothing.
func TestNoRetryOfUnsafePost(t *testing.T) {
	c, seen := scripted(t, status(500, ""), accepted)
	_, err := c.Emails.Resend(context.Background(), "e1")
	var apiErr *carteiro.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 500 || len(seen()) != 1 {
		t.Fatalf("resend after 500: %v, %d requests", err, len(seen()))
	}
	c, seen = scripted(t, status(429, "0"), accepted)
	if _, err := c.Emails.Resend(context.Background(), "e1"); err != nil || len(seen()) != 2 {
		t.Fatalf("resend after 429: %v, %d requests", err, len(seen()))
	}
}

// Retries are bounded: MaxRetries, and a Retry-After beyond MaxWait is
// returned at once rather than slept.
func TestRetriesAreBounded(t *testing.T) {
	c, seen := scripted(t, status(503, ""))
	_, err := c.Domains.Get(context.Background(), "d1")
	if len(seen()) != 4 || err == nil {
		t.Fatalf("%d requests (want 1 + 3 retries), err %v", len(seen()), err)
	}
	c, seen = scripted(t, status(429, "3600"))
	start := time.Now()
	_, err = c.Domains.Get(context.Background(), "d1")
	var apiErr *carteiro.Error
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != 3600 || len(seen()) != 1 || time.Since(start) > time.Second {
		t.Fatalf("Retry-After 3600: %v, %d requests", err, len(seen()))
	}
}

// The error envelope becomes a *carteiro.Error with every part.
func TestErrorEnvelope(t *testing.T) {
	c, _ := scripted(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "req-42")
		w.WriteHeader(422)
		fmt.Fprint(w, `{"error":{"code":"VALIDATION_ERROR","message":"to é obrigatório","details":{"field":"to","reason":"required"}}}`)
	})
	_, err := c.Emails.Send(context.Background(), &carteiro.SendEmailRequest{From: "a@x.example"})
	var apiErr *carteiro.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("not a *carteiro.Error: %T %v", err, err)
	}
	if apiErr.Status != 422 || apiErr.Code != carteiro.CodeValidation || apiErr.Field != "to" || apiErr.Reason != "required" ||
		apiErr.RequestID != "req-42" || apiErr.Message == "" || apiErr.Details["field"] != "to" {
		t.Fatalf("error %+v", apiErr)
	}
}

// The iterator follows nextCursor until it is null, and stops when the
// loop breaks.
func TestListFollowsCursor(t *testing.T) {
	page := func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		switch r.URL.Query().Get("after") {
		case "":
			body = map[string]any{"emails": []map[string]any{{"id": "1"}, {"id": "2"}}, "nextCursor": "c2"}
		case "c2":
			body = map[string]any{"emails": []map[string]any{{"id": "3"}}, "nextCursor": nil}
		}
		_ = json.NewEncoder(w).Encode(body)
	}
	c, seen := scripted(t, page)
	var ids []string
	for e, err := range c.Emails.List(context.Background(), &carteiro.EmailListParams{Status: "delivered", Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if fmt.Sprint(ids) != "[1 2 3]" || len(seen()) != 2 || seen()[1].query != "after=c2&limit=2&status=delivered" {
		t.Fatalf("ids %v, requests %+v", ids, seen())
	}
	c, seen = scripted(t, page)
	for range c.Emails.List(context.Background(), nil) {
		break
	}
	if len(seen()) != 1 {
		t.Fatalf("breaking out after one item made %d requests", len(seen()))
	}
}

// Offset lists advance by the items received until the total.
func TestListFollowsOffset(t *testing.T) {
	c, seen := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		off := r.URL.Query().Get("offset")
		items := []map[string]any{{"id": "a" + off}, {"id": "b" + off}}
		if off == "2" {
			items = items[:1]
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"contacts": items, "total": 3})
	})
	var ids []string
	for ct, err := range c.Contacts.List(context.Background(), "aud", &carteiro.PageParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ct.ID)
	}
	if fmt.Sprint(ids) != "[a b a2]" || len(seen()) != 2 || seen()[0].path != "/v1/product/audiences/aud/contacts" {
		t.Fatalf("ids %v, requests %+v", ids, seen())
	}
}

// Nullable fields are left out, set, or sent as null.
func TestNullable(t *testing.T) {
	b, _ := json.Marshal(carteiro.UpdateAudienceRequest{Description: carteiro.Null[string]()})
	if string(b) != `{"description":null}` {
		t.Fatalf("cleared: %s", b)
	}
	b, _ = json.Marshal(carteiro.UpdateAudienceRequest{Name: "n", Description: carteiro.Set("d")})
	if string(b) != `{"name":"n","description":"d"}` {
		t.Fatalf("set: %s", b)
	}
	b, _ = json.Marshal(carteiro.UpdateAudienceRequest{Active: carteiro.Bool(false)})
	if string(b) != `{"active":false}` {
		t.Fatalf("left out: %s", b)
	}
}
