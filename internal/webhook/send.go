package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Request headers of D48.
const (
	HeaderEventID     = "X-Service-Event-Id"
	HeaderTimestamp   = "X-Service-Timestamp"
	HeaderSignature   = "X-Service-Signature"
	HeaderSignatureV2 = "X-Service-Signature-V2"
)

// Request is one attempt to deliver one event.
type Request struct {
	// URL is the webhook's https URL.
	URL string
	// Secret signs the body when not empty (D48).
	Secret string
	// EventID is the payload's id, the same across retries (D47).
	EventID string
	// Body is the JSON payload, sent and signed byte for byte.
	Body []byte
	// Timestamp is sent and signed as Unix seconds; zero means now.
	Timestamp time.Time
}

// Outcome is what one attempt achieved, ready to be stored on the delivery
// (2.12: responseStatus, responseBody, lastError).
type Outcome struct {
	// Success is true for any 2xx answered within the timeout (D49).
	Success bool
	// Status is the HTTP status, 0 when no answer came.
	Status int
	// Body is the start of the response body: at most MaxResponseBody
	// bytes of valid UTF-8 without NUL.
	Body string
	// Err says why the attempt failed; empty on success.
	Err string
	// RetryAfter is the receiver's Retry-After on a 429 or 503, in seconds
	// or as an HTTP date, capped at MaxRetryAfter; zero when absent.
	RetryAfter time.Duration
	// Gone is true for a 410: D49 disables the webhook at once.
	Gone bool
}

// Send makes one attempt: a POST of r.Body with the D48 headers, bounded by
// the client's timeout from connect to the end of the body read. It never
// follows redirects, and refuses a URL that is not https or whose address is
// not public (unless AllowPrivate). Failures are described in Outcome.Err,
// never returned as errors: each is just a failed attempt to the caller.
func (c *Client) Send(ctx context.Context, r Request) Outcome {
	t, err := parseTarget(r.URL)
	if err != nil {
		return Outcome{Err: "invalid webhook URL: " + err.Error()}
	}
	stamp := r.Timestamp
	if stamp.IsZero() {
		stamp = c.clock.Now()
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url.String(), bytes.NewReader(r.Body))
	if err != nil {
		return Outcome{Err: "build request: " + err.Error()}
	}
	c.setHeaders(req.Header, r, stamp.Unix())

	resp, err := c.http.Do(req)
	if err != nil {
		return Outcome{Err: c.describe(err)}
	}
	body, readErr := readResponseBody(resp.Body)
	if readErr == nil && ctx.Err() != nil {
		// Cancelling closes the TLS connection with a close_notify alert; a
		// receiver may answer it by ending the body, which then reads as a
		// clean EOF. The answer still came too late.
		readErr = context.Cause(ctx)
	}
	out := Outcome{Status: resp.StatusCode, Body: body}
	switch code := resp.StatusCode; {
	case readErr != nil:
		out.Err = "read response body: " + c.describe(readErr)
	case code >= 200 && code <= 299:
		out.Success = true
	case code >= 300 && code <= 399:
		out.Err = fmt.Sprintf("HTTP %d: redirects are not followed", code)
	default:
		out.Err = fmt.Sprintf("HTTP %d", code)
	}
	switch resp.StatusCode {
	case http.StatusGone:
		out.Gone = true
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		out.RetryAfter = retryAfter(resp.Header, c.clock.Now())
	}
	return out
}

// setHeaders writes the headers of D48 and of Standard Webhooks (D76). The
// three signatures cover exactly the bytes sent.
func (c *Client) setHeaders(h http.Header, r Request, ts int64) {
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", c.userAgent)
	h.Set(HeaderEventID, r.EventID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderStandardID, r.EventID)
	h.Set(HeaderStandardTimestamp, strconv.FormatInt(ts, 10))
	if r.Secret != "" {
		h.Set(HeaderSignature, Sign(r.Secret, r.Body))
		h.Set(HeaderSignatureV2, SignV2(r.Secret, ts, r.Body))
		h.Set(HeaderStandardSignature, SignStandard(r.Secret, r.EventID, ts, r.Body))
	}
}

// describe turns a transport error into lastError: short, without the
// "Post <url>:" prefix the URL already tells, and naming timeouts plainly.
func (c *Client) describe(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("timeout: no complete answer within %s", c.timeout)
	case errors.Is(err, context.Canceled):
		return "canceled before an answer"
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	return err.Error()
}
