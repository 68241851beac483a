package dashboard

import (
	"net/http"
	"net/url"
)

// maxPreviewBytes bounds a preview form (the contract's 1 MB template
// source, rendered, with room to spare).
const maxPreviewBytes = 4 << 20

// servePreview shows HTML the dashboard has just rendered through the
// platform API (a template or broadcast preview) in the preview iframe:
// the page posts it here with a form whose target is that iframe. A srcdoc
// iframe would inherit the page's CSP, under which an email's inline styles
// do not apply; this answer carries the viewer's CSP instead (sandbox, no
// script, no remote images). Only the dashboard's own pages may post here:
// a request from another origin is refused, so no other site can have this
// origin show HTML of its choosing.
func servePreview(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", viewerCSP(false))
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	if r.Method != http.MethodPost {
		hdr.Set("Allow", "POST")
		writeViewerMessage(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	if !sameOrigin(r) {
		writeViewerMessage(w, http.StatusForbidden, "forbidden")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPreviewBytes)
	if err := r.ParseForm(); err != nil {
		writeViewerMessage(w, http.StatusRequestEntityTooLarge, "too large")
		return
	}
	_, _ = w.Write([]byte(r.PostForm.Get("html")))
}

// sameOrigin tells whether the browser says the request comes from a page
// of this host: Sec-Fetch-Site when sent, else the Origin header.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}
