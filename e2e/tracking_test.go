package e2e

import (
	"bytes"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

var trackingURL = regexp.MustCompile(`https?://[^"'\s>]+/t/([oc])/([A-Za-z0-9_\-.]+)`)

func TestOpenAndClickTracking(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "a@customer.example", "subject": "track",
			"html": `<html><body><p>Hi</p><a href="https://shop.example/order?id=1&amp;x=2">order</a> <a href="mailto:help@shop.example">help</a></body></html>`})
		waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		msgs := smtp.Messages()
		m, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
		testserver.Must(t, err == nil, "parse: %v", err)
		html := walkMIME(t, m.Header.Get("Content-Type"), m.Body)["text/html"]
		testserver.Must(t, strings.Contains(html, "mailto:help@shop.example"), "mailto rewritten: %s", html)
		var openPath, clickPath string
		for _, match := range trackingURL.FindAllStringSubmatch(html, -1) {
			path := "/t/" + match[1] + "/" + match[2]
			if match[1] == "o" {
				openPath = path
			} else {
				clickPath = path
			}
		}
		testserver.Must(t, openPath != "" && clickPath != "", "no tracking links in %s", html)

		// Forged or altered tokens: 404 and no event.
		// One character of the token changed to another: overwriting the
		// last two with "AA" left a token that already ended in "AA"
		// unchanged (once in CI, a 1 in 4,096 chance).
		tampered := tamper(clickPath)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: tampered}), 404, "NOT_FOUND")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/t/o/forged-token"}), 404, "NOT_FOUND")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: strings.Replace(openPath, "/t/o/", "/t/c/", 1)}), 404, "NOT_FOUND")
		e := getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, e.OpenCount == 0 && e.ClickCount == 0 && e.OpenedAt == nil, "forged tokens counted: %+v", e)

		// The pixel: a GIF, counted every time, openedAt kept from the first.
		r := ts.Do(t, testserver.Request{Method: "GET", Path: openPath, Header: map[string]string{"User-Agent": "GoogleImageProxy"}})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.Header.Get("Content-Type") == "image/gif" && bytes.HasPrefix(r.Body, []byte("GIF89a")), "pixel %q", r.Body)
		first := getEmail(t, ts, ts.LiveKey, res.ID)
		ts.Clock.Advance(time.Minute)
		ts.Do(t, testserver.Request{Method: "GET", Path: openPath})
		e = getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, e.OpenCount == 2 && *e.OpenedAt == *first.OpenedAt, "opens %+v", e)

		// The click redirects only to the URL that was in the email.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: clickPath, Header: map[string]string{"User-Agent": "Mozilla/5.0"}})
		testserver.Expect(t, r, http.StatusFound, "")
		testserver.Must(t, r.Header.Get("Location") == "https://shop.example/order?id=1&x=2", "Location %q", r.Header.Get("Location"))
		e = getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, e.ClickCount == 1 && e.FirstClickedAt != nil, "click %+v", e)
		evs := events(t, ts, ts.LiveKey, res.ID)
		opened, clicked := findEvents(evs, "opened"), findEvents(evs, "clicked")
		testserver.Must(t, len(opened) == 2 && opened[0].Metadata["userAgent"] == "GoogleImageProxy", "opened events %+v", opened)
		testserver.Must(t, len(clicked) == 1 && clicked[0].Metadata["url"] == "https://shop.example/order?id=1&x=2" &&
			clicked[0].Metadata["userAgent"] == "Mozilla/5.0", "clicked events %+v", clicked)
		// HEAD probes (link scanners) do not count.
		ts.Do(t, testserver.Request{Method: "HEAD", Path: clickPath})
		testserver.Must(t, getEmail(t, ts, ts.LiveKey, res.ID).ClickCount == 1, "a HEAD counted as a click")
	})
}

// tamper changes the middle character of a tracking path's token to
// another one.
func tamper(path string) string {
	i := strings.LastIndexByte(path, '/') + 1 + (len(path)-strings.LastIndexByte(path, '/')-1)/2
	replacement := byte('A')
	if path[i] == 'A' {
		replacement = 'B'
	}
	return path[:i] + string(replacement) + path[i+1:]
}
