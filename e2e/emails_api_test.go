package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

func TestBatchItemsAreIndependent(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		items := []any{
			map[string]any{"from": "a@x.example", "to": "one@y.example", "subject": "1", "text": "t"},
			map[string]any{"from": "a@x.example", "to": "bad@", "subject": "2", "text": "t"},
			"not an object",
			map[string]any{"from": "a@x.example", "to": "two@y.example", "subject": "3", "text": "t", "scheduledAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)},
		}
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.TestKey, Body: items})
		testserver.Expect(t, r, http.StatusAccepted, "")
		var out []struct {
			OK    bool        `json:"ok"`
			Data  *sendResult `json:"data"`
			Error string      `json:"error"`
		}
		r.Decode(t, &out)
		testserver.Must(t, len(out) == 4, "response not aligned: %s", r.Body)
		testserver.Must(t, out[0].OK && out[0].Data.Status == "queued", "item 0: %+v", out[0])
		testserver.Must(t, !out[1].OK && strings.Contains(out[1].Error, "VALIDATION_ERROR") && strings.Contains(out[1].Error, "to"), "item 1: %+v", out[1])
		testserver.Must(t, !out[2].OK && strings.Contains(out[2].Error, "INVALID_JSON"), "item 2: %+v", out[2])
		testserver.Must(t, out[3].OK && out[3].Data.Status == "scheduled", "item 3: %+v", out[3])
		waitStatus(t, ts, ts.TestKey, out[0].Data.ID, "delivered")

		// Whole-batch errors.
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.TestKey, Body: `{"a":1}`}), 400, "INVALID_JSON")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.TestKey, Body: `[]`}), 422, "VALIDATION_ERROR")
		tooMany := make([]any, 101)
		for i := range tooMany {
			tooMany[i] = items[0]
		}
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.TestKey, Body: tooMany}), 422, "VALIDATION_ERROR")
		list := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails", Key: ts.TestKey})
		testserver.Must(t, len(list.JSON(t)["emails"].([]any)) == 2, "refused batches created emails: %s", list.Body)
	})
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		body := `{"from":"a@x.example","to":"b@y.example","subject":"once","text":"t","idempotencyKey":"order-42"}`
		r1 := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: body})
		testserver.Expect(t, r1, 202, "")
		r2 := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: body})
		testserver.Expect(t, r2, 202, "")
		testserver.Must(t, string(r1.Body) == string(r2.Body), "replay differs: %s vs %s", r1.Body, r2.Body)
		testserver.Must(t, r2.Header.Get("Idempotent-Replayed") == "true" && r1.Header.Get("Idempotent-Replayed") == "", "replay header")
		other := strings.Replace(body, "once", "twice", 1)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: other}), 409, "IDEMPOTENCY_KEY_REUSED")

		// The header form, and 50 concurrent requests with one key: one email.
		headerBody := `{"from":"a@x.example","to":"b@y.example","subject":"concurrent","text":"t"}`
		var wg sync.WaitGroup
		ids := make([]string, 50)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: headerBody,
					Header: map[string]string{"Idempotency-Key": "concurrent-1"}})
				if r.Status != 202 {
					t.Errorf("concurrent request: %d %s", r.Status, r.Body)
					return
				}
				var res sendResult
				_ = json.Unmarshal(r.Body, &res)
				ids[i] = res.ID
			}()
		}
		wg.Wait()
		for _, id := range ids {
			testserver.Must(t, id == ids[0], "concurrent requests created several emails: %v", ids)
		}
		list := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?subjectContains=concurrent", Key: ts.TestKey})
		testserver.Must(t, len(list.JSON(t)["emails"].([]any)) == 1, "want one email: %s", list.Body)

		// Keys are kept 24 hours (D22).
		ts.Clock.Advance(25 * time.Hour)
		r3 := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.TestKey, Body: other})
		testserver.Expect(t, r3, 202, "")
		testserver.Must(t, r3.Header.Get("Idempotent-Replayed") == "", "an expired key replayed")
	})
}

func TestCancelAndResend(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		at := ts.Clock.Now().Add(2 * time.Hour).Format(time.RFC3339)
		res := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "later", "text": "t", "scheduledAt": at})
		testserver.Must(t, res.Status == "scheduled", "status %s", res.Status)
		e := getEmail(t, ts, ts.TestKey, res.ID)
		testserver.Must(t, e.Status == "scheduled", "status %s", e.Status)

		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + res.ID + "/cancel", Key: ts.TestKey})
		testserver.Expect(t, r, http.StatusNoContent, "")
		testserver.Must(t, len(r.Body) == 0, "204 with a body")
		testserver.Must(t, getEmail(t, ts, ts.TestKey, res.ID).Status == "cancelled", "not cancelled")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + res.ID + "/cancel", Key: ts.TestKey})
		testserver.Expect(t, r, http.StatusConflict, "INVALID_STATE")
		testserver.Must(t, strings.Contains(string(r.Body), `"status":"cancelled"`), "details: %s", r.Body)

		// Resend a cancelled email: a new id with the same content.
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + res.ID + "/resend", Key: ts.TestKey})
		testserver.Expect(t, r, http.StatusAccepted, "")
		var again sendResult
		r.Decode(t, &again)
		testserver.Must(t, again.ID != res.ID, "resend reused the id")
		copy := waitStatus(t, ts, ts.TestKey, again.ID, "delivered", "scheduled")
		testserver.Must(t, *copy.Subject == "later" && copy.To[0] == "b@y.example", "copy %+v", copy)

		// A delivered email cannot be cancelled nor resent (D29).
		now := send(t, ts, ts.TestKey, map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "now", "text": "t"})
		waitStatus(t, ts, ts.TestKey, now.ID, "delivered")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + now.ID + "/cancel", Key: ts.TestKey}), 409, "INVALID_STATE")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/" + now.ID + "/resend", Key: ts.TestKey}), 409, "INVALID_STATE")
	})
}

func TestListFiltersAndTags(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		mk := func(to, subject, tag string) sendResult {
			body := map[string]any{"from": "News <news@x.example>", "to": to, "subject": subject, "text": "t",
				"tags": []map[string]string{{"name": "kind", "value": tag}}}
			return send(t, ts, ts.TestKey, body)
		}
		a := mk("Alice@Example.org", "Your Receipt #1", "receipt")
		ts.Clock.Advance(time.Second)
		bb := mk("bob@example.net", "Welcome aboard", "welcome")
		ts.Clock.Advance(time.Second)
		c := mk("carol@example.org", "Another receipt", "receipt")
		for _, e := range []sendResult{a, bb, c} {
			waitStatus(t, ts, ts.TestKey, e.ID, "delivered")
		}
		ids := func(query string) []string {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?" + query, Key: ts.TestKey})
			testserver.Expect(t, r, 200, "")
			var out struct {
				Emails []emailJSON `json:"emails"`
			}
			r.Decode(t, &out)
			var got []string
			for _, e := range out.Emails {
				got = append(got, e.ID)
			}
			return got
		}
		eq := func(query string, want ...string) {
			got := ids(query)
			testserver.Must(t, fmt.Sprint(got) == fmt.Sprint(want), "%s: got %v, want %v", query, got, want)
		}
		eq("", c.ID, bb.ID, a.ID)
		eq("recipient=EXAMPLE.ORG", c.ID, a.ID)
		eq("subjectContains=receipt", c.ID, a.ID)
		eq("tag=kind:welcome", bb.ID)
		eq("tag=kind", c.ID, bb.ID, a.ID)
		eq("fromEmail=NEWS@x.example", c.ID, bb.ID, a.ID)
		eq("status=delivered&subjectContains=welcome", bb.ID)
		eq("status=bounced")
		eq("status=complained")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?status=weird", Key: ts.TestKey}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?limit=101", Key: ts.TestKey}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?from=yesterday", Key: ts.TestKey}), 422, "VALIDATION_ERROR")

		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails/tags", Key: ts.TestKey})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, strings.Contains(string(r.Body), `{"name":"kind","values":["receipt","welcome"]}`), "tags: %s", r.Body)
	})
}

// TestCursorNeverSkipsOrRepeats pages through 1,000 emails created in
// groups that share one createdAt (D27).
func TestCursorNeverSkipsOrRepeats(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		item := map[string]any{"from": "a@x.example", "to": "b@y.example", "subject": "page", "text": "t"}
		created := map[string]bool{}
		sizes := []int{7, 100, 1, 13, 60, 3, 100, 16, 100, 100, 100, 100, 100, 100, 100}
		total := 0
		for _, n := range sizes {
			if total+n > 1000 {
				n = 1000 - total
			}
			if n == 0 {
				break
			}
			batch := make([]any, n)
			for i := range batch {
				batch[i] = item
			}
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.TestKey, Body: batch})
			testserver.Expect(t, r, 202, "")
			var out []struct {
				Data sendResult `json:"data"`
			}
			r.Decode(t, &out)
			for _, o := range out {
				created[o.Data.ID] = true
			}
			total += n
			ts.Clock.Advance(time.Millisecond)
		}
		testserver.Must(t, len(created) == 1000, "created %d", len(created))
		for _, limit := range []int{30, 100} {
			seen := map[string]bool{}
			cursor := ""
			pages := 0
			for {
				path := fmt.Sprintf("/v1/product/emails?limit=%d", limit)
				if cursor != "" {
					path += "&after=" + cursor
				}
				r := ts.Do(t, testserver.Request{Method: "GET", Path: path, Key: ts.TestKey})
				testserver.Expect(t, r, 200, "")
				var page struct {
					Emails     []emailJSON `json:"emails"`
					NextCursor *string     `json:"nextCursor"`
				}
				r.Decode(t, &page)
				pages++
				for _, e := range page.Emails {
					testserver.Must(t, !seen[e.ID], "limit %d: %s repeated", limit, e.ID)
					seen[e.ID] = true
				}
				if page.NextCursor == nil {
					break
				}
				cursor = *page.NextCursor
				testserver.Must(t, pages < 200, "pagination does not end")
			}
			testserver.Must(t, len(seen) == 1000, "limit %d: saw %d of 1000", limit, len(seen))
		}
	})
}
