// Package dashboard serves Carteiro's web console (D73): static pages and
// ES modules embedded in the binary, under /dashboard/, with a strict
// Content-Security-Policy. The pages hold no data; they call the JSON
// platform API (/v1/platform/*) with the session cookie. The one dynamic
// route is the email viewer, which shows an email's HTML inside a
// sandboxed iframe under its own CSP.
package dashboard

import (
	"net/http"
	"strings"
)

// Prefix is where the dashboard lives.
const Prefix = "/dashboard/"

// Handler serves the dashboard and hands every other request to api (the
// product and platform API). GET / redirects to the dashboard (D73).
type Handler struct {
	api    http.Handler
	assets *assets
}

// New builds the handler; api serves everything that is not a page.
func New(api http.Handler) (*Handler, error) {
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	return &Handler{api: api, assets: a}, nil
}

// ServeHTTP routes /, /dashboard and /dashboard/... to the pages.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/" || p == "/dashboard":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.api.ServeHTTP(w, r)
			return
		}
		http.Redirect(w, r, Prefix, http.StatusFound)
	case strings.HasPrefix(p, Prefix):
		h.serveDashboard(w, r, strings.TrimPrefix(p, Prefix))
	default:
		h.api.ServeHTTP(w, r)
	}
}

func (h *Handler) serveDashboard(w http.ResponseWriter, r *http.Request, rest string) {
	if rest == "preview" {
		setCommonHeaders(w)
		servePreview(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	setCommonHeaders(w)
	switch {
	case strings.HasPrefix(rest, "assets/"):
		h.assets.serve(w, r, strings.TrimPrefix(rest, "assets/"))
	case strings.HasPrefix(rest, "viewer/"):
		h.serveViewer(w, r, strings.TrimPrefix(rest, "viewer/"))
	default:
		// Every other path is a page of the single-page app (its router
		// reads the path): /dashboard/, /dashboard/login,
		// /dashboard/setup/<token>, /dashboard/emails/<id>, ...
		h.servePage(w, r)
	}
}

// setCommonHeaders are sent with every dashboard response.
func setCommonHeaders(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
}
