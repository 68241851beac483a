package e2e

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/sdk/go/carteiro"
)

// statusCounter counts the 429s an SDK client received. The test server's
// clock stands still unless moved, and the rate limiter reads it, so on
// each 429 it moves the clock by the Retry-After the SDK is about to wait
// for real.
type statusCounter struct {
	ts      *testserver.TestServer
	limited atomic.Int32
}

func (c *statusCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.limited.Add(1)
		wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		c.ts.Clock.Advance(time.Duration(wait) * time.Second)
	}
	return resp, err
}

// TestSDKRetriesRateLimitedSends: against a real server limiting the key
// to 1 request a second (burst 2), five sends in a row all succeed because
// the SDK waits out each 429's Retry-After, and exactly five emails reach
// SMTP: a retried send is not sent twice. Without retries the 429 is a
// *carteiro.Error with its code and Retry-After.
func TestSDKRetriesRateLimitedSends(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, map[string]string{"CARTEIRO_RATE_LIMIT_KEY": "1,2"})
		ctx := context.Background()
		counter := &statusCounter{ts: ts}
		client := carteiro.NewClient(ts.LiveKey, carteiro.WithBaseURL(ts.URL), carteiro.WithHTTPClient(&http.Client{Transport: counter}))
		ids := map[string]bool{}
		for range 5 {
			res, err := client.Emails.Send(ctx, &carteiro.SendEmailRequest{From: "orders@shop.example", To: []string{"ana@customer.example"},
				Subject: "limited", Text: "t"})
			testserver.Must(t, err == nil, "send with retries: %v", err)
			ids[res.ID] = true
		}
		testserver.Must(t, len(ids) == 5, "5 sends gave %d emails", len(ids))
		testserver.Must(t, counter.limited.Load() >= 2, "the server limited %d requests; the test needs some", counter.limited.Load())
		msgs, err := smtp.WaitForMessages(5, 20*time.Second)
		testserver.Must(t, err == nil, "SMTP: %v", err)
		time.Sleep(500 * time.Millisecond)
		testserver.Must(t, len(smtp.Messages()) == 5, "SMTP received %d messages, want 5 (none twice): %d", len(smtp.Messages()), len(msgs))

		bare := carteiro.NewClient(ts.LiveKey, carteiro.WithBaseURL(ts.URL), carteiro.WithRetryPolicy(carteiro.NoRetries))
		var apiErr *carteiro.Error
		for range 5 {
			if _, err = bare.Domains.ListPage(ctx); err != nil {
				break
			}
		}
		testserver.Must(t, errors.As(err, &apiErr) && apiErr.Status == 429 && apiErr.Code == carteiro.CodeRateLimitExceeded && apiErr.RetryAfter >= 1,
			"without retries: %v", err)
	})
}
