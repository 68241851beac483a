package httpapi

import (
	"net/http"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/tracking"
)

// Tracking routes of D53, outside /v1/product and without keys: the pixel
// and the click redirect. A forged or altered token is a 404 and records
// nothing.

func (s *Server) trackOpen(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		// Link checkers probe with HEAD; only a real fetch is an open.
		if !s.app.ValidOpenToken(r.PathValue("token")) {
			s.writeError(w, r, carteiro.NotFound())
			return
		}
		w.Header().Set("Content-Type", "image/gif")
		w.Header().Set("Cache-Control", "no-store")
		return
	}
	if !s.app.RecordOpen(r.Context(), r.PathValue("token"), r.UserAgent()) {
		s.writeError(w, r, carteiro.NotFound())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/gif")
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate, private")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(tracking.Pixel)
}

func (s *Server) trackClick(w http.ResponseWriter, r *http.Request) {
	var url string
	var ok bool
	if r.Method == http.MethodHead {
		url, ok = s.app.ClickDestination(r.PathValue("token")) // a probe, not a click
	} else {
		url, ok = s.app.RecordClick(r.Context(), r.PathValue("token"), r.UserAgent())
	}
	if !ok {
		s.writeError(w, r, carteiro.NotFound())
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, url, http.StatusFound)
}
