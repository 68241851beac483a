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

// API is the JSON API (product and platform) the dashboard sits beside.
type API interface {
	http.Handler
	// Around runs next inside the API's request middleware (request id,
	// log line, metrics, per-IP limit, panic recovery) under a route name;
	// with secretPath the log shows the route, not the path.
	Around(route string, secretPath bool, next http.HandlerFunc) http.HandlerFunc
}

// Handler serves the dashboard and hands every other request to api (the
// product and platform API). GET / redirects to the dashboard (D73).
type Handler struct {
	api    API
	assets *assets
	// The dashboard's routes, each inside the API's middleware; their
	// names (not the paths, which carry ids and tokens) go to the log and
	// the metrics.
	redirect, preview, asset, viewer, page, setupPage, notAllowed http.HandlerFunc
}

// New builds the handler; api serves everything that is not a page.
func New(api API) (*Handler, error) {
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	h := &Handler{api: api, assets: a}
	h.redirect = api.Around("GET /dashboard", false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix, http.StatusFound)
	})
	h.preview = api.Around("POST /dashboard/preview", false, func(w http.ResponseWriter, r *http.Request) {
		setCommonHeaders(w)
		servePreview(w, r)
	})
	h.asset = api.Around("GET /dashboard/assets/{file}", false, func(w http.ResponseWriter, r *http.Request) {
		setCommonHeaders(w)
		h.assets.serve(w, r, strings.TrimPrefix(r.URL.Path, Prefix+"assets/"))
	})
	h.viewer = api.Around("GET /dashboard/viewer/{id}", false, func(w http.ResponseWriter, r *http.Request) {
		setCommonHeaders(w)
		h.serveViewer(w, r, strings.TrimPrefix(r.URL.Path, Prefix+"viewer/"))
	})
	// Every other path is a page of the single-page app (its router reads
	// the path): /dashboard/, /dashboard/login, /dashboard/setup/<token>,
	// /dashboard/emails/<id>, ...
	page := func(w http.ResponseWriter, r *http.Request) {
		setCommonHeaders(w)
		h.servePage(w, r)
	}
	h.page = api.Around("GET /dashboard/{page}", false, page)
	h.setupPage = api.Around("GET /dashboard/setup/{token}", true, page)
	h.notAllowed = api.Around("/dashboard/{page}", false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	})
	return h, nil
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
		h.redirect(w, r)
	case strings.HasPrefix(p, Prefix):
		h.serveDashboard(w, r, strings.TrimPrefix(p, Prefix))
	default:
		h.api.ServeHTTP(w, r)
	}
}

func (h *Handler) serveDashboard(w http.ResponseWriter, r *http.Request, rest string) {
	if rest == "preview" {
		h.preview(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.notAllowed(w, r)
		return
	}
	switch {
	case strings.HasPrefix(rest, "assets/"):
		h.asset(w, r)
	case strings.HasPrefix(rest, "viewer/"):
		h.viewer(w, r)
	case strings.HasPrefix(rest, "setup/"):
		h.setupPage(w, r)
	default:
		h.page(w, r)
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
