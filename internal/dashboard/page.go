package dashboard

import (
	"bytes"
	"net/http"

	"github.com/carteiro/carteiro/internal/i18n"
)

// servePage answers every page path with the app's shell. The language of
// the request (Accept-Language, D10) goes into <html lang>, which the
// scripts use until the user has chosen one (D73).
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) {
	lang := i18n.Match(r.Header.Get("Accept-Language"))
	body := bytes.Replace(h.assets.index, []byte("{{LANG}}"), []byte(lang), 1)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Security-Policy", pageCSP)
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Language", string(lang))
	hdr.Add("Vary", "Accept-Language")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}
