package webhook

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxResponseBody is how much of a receiver's answer is kept (2.12).
const MaxResponseBody = 4096

// maxDrainedBody is how much more of a body is read and thrown away so the
// connection can serve the next delivery. A longer body costs a new
// connection rather than unbounded reading.
const maxDrainedBody = 64 << 10

// MaxRetryAfter caps a receiver's Retry-After, so one answer cannot park a
// delivery for months.
const MaxRetryAfter = 24 * time.Hour

// readResponseBody keeps the first MaxResponseBody bytes, drains a bounded
// amount more and closes the body. The error is that of the read, if any:
// a body cut short by the timeout fails the attempt.
func readResponseBody(body io.ReadCloser) (string, error) {
	defer body.Close()
	kept, err := io.ReadAll(io.LimitReader(body, MaxResponseBody))
	if err == nil {
		_, err = io.Copy(io.Discard, io.LimitReader(body, maxDrainedBody))
	}
	return storableText(kept), err
}

// storableText makes b safe for both stores' text columns: invalid UTF-8
// (such as a character cut by the size limit) becomes U+FFFD, NUL bytes,
// which PostgreSQL refuses in text, are dropped, and the result is at most
// MaxResponseBody bytes, cut on a character boundary.
func storableText(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	if len(s) <= MaxResponseBody {
		return s
	}
	cut := MaxResponseBody
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// retryAfter reads Retry-After as delay-seconds or as an HTTP date. A date
// is measured from the response's own Date header when it has one, so a
// receiver whose clock differs from ours still gets the wait it asked for;
// otherwise from now. Absent, malformed or past values are zero.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) && v[0] != '-' {
		return MaxRetryAfter
	}
	if err == nil {
		if secs <= 0 {
			return 0
		}
		if secs >= int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if sent, err := http.ParseTime(h.Get("Date")); err == nil {
		now = sent
	}
	return min(max(when.Sub(now), 0), MaxRetryAfter)
}
