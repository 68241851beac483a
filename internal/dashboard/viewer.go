package dashboard

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
)

// serveViewer shows an email's HTML body for the dashboard's iframe
// (D73): /dashboard/viewer/<emailId>?mode=test&images=1. It asks the
// platform API for the email with the caller's own cookie, so the session,
// its organization and the mode decide exactly as for the JSON route, and
// answers under viewerCSP: no script runs, remote images load only with
// images=1.
func (h *Handler) serveViewer(w http.ResponseWriter, r *http.Request, id string) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", viewerCSP(r.URL.Query().Get("images") == "1"))
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	if id == "" || strings.ContainsAny(id, "/?#%") {
		writeViewerMessage(w, http.StatusNotFound, "not found")
		return
	}
	sub, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/v1/platform/emails/"+url.PathEscape(id), nil)
	if err != nil {
		writeViewerMessage(w, http.StatusBadRequest, "bad request")
		return
	}
	sub.RemoteAddr = r.RemoteAddr
	sub.Host = r.Host
	for _, name := range []string{"Cookie", "Accept-Language", "User-Agent", "X-Forwarded-For"} {
		if v := r.Header.Get(name); v != "" {
			sub.Header.Set(name, v)
		}
	}
	if mode := r.URL.Query().Get("mode"); mode == "live" || mode == "test" {
		sub.Header.Set("X-Carteiro-Mode", mode)
	}
	rec := newRecorder()
	h.api.ServeHTTP(rec, sub)
	if rec.status != http.StatusOK {
		writeViewerMessage(w, rec.status, http.StatusText(rec.status))
		return
	}
	var email struct {
		HTML *string `json:"html"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &email); err != nil {
		writeViewerMessage(w, http.StatusBadGateway, "unreadable email")
		return
	}
	switch {
	case email.HTML != nil && *email.HTML != "":
		_, _ = w.Write([]byte(*email.HTML))
	case email.Text != nil:
		_, _ = w.Write([]byte("<!doctype html><pre style=\"white-space:pre-wrap\">" + html.EscapeString(*email.Text) + "</pre>"))
	default:
		_, _ = w.Write([]byte("<!doctype html><p></p>"))
	}
}

func writeViewerMessage(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	_, _ = w.Write([]byte("<!doctype html><p>" + html.EscapeString(msg) + "</p>"))
}

// recorder keeps an in-process response of the API.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}, status: http.StatusOK} }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }
func (r *recorder) WriteHeader(status int)      { r.status = status }
