package httpapi

import (
	"html/template"
	"net/http"

	"github.com/carteiro/carteiro"
)

// The unsubscribe routes of D43, outside /v1/product and without keys.
// GET shows a confirmation page and changes nothing, so link scanners
// cannot unsubscribe anyone; POST (the RFC 8058 one-click request from the
// mail client, or the page's button) adds the suppression at once.

var unsubscribePage = template.Must(template.New("u").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem}</style>
</head><body><h1>{{.Title}}</h1><p>{{.Body}}</p>
{{if .Form}}<form method="post"><button type="submit">{{.Button}}</button></form>{{end}}
</body></html>
`))

type unsubscribeView struct {
	Lang, Title, Body, Button string
	Form                      bool
}

func (s *Server) unsubscribeText(r *http.Request, id string, data map[string]any) string {
	return s.catalog.Text(langOf(r.Context()), id, data)
}

func (s *Server) writeUnsubscribePage(w http.ResponseWriter, r *http.Request, status int, v unsubscribeView) {
	v.Lang = string(langOf(r.Context()))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(status)
	_ = unsubscribePage.Execute(w, v)
}

func (s *Server) unsubscribeConfirm(w http.ResponseWriter, r *http.Request) {
	t, ok := s.app.ParseUnsubscribe(r.PathValue("token"))
	if !ok {
		s.writeError(w, r, carteiro.NotFound())
		return
	}
	data := map[string]any{"Email": t.Email}
	s.writeUnsubscribePage(w, r, http.StatusOK, unsubscribeView{Title: s.unsubscribeText(r, "unsubscribe.title", nil),
		Body: s.unsubscribeText(r, "unsubscribe.confirm", data), Button: s.unsubscribeText(r, "unsubscribe.button", nil), Form: true})
}

func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) {
	t, err := s.app.Unsubscribe(r.Context(), r.PathValue("token"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeUnsubscribePage(w, r, http.StatusOK, unsubscribeView{Title: s.unsubscribeText(r, "unsubscribe.title", nil),
		Body: s.unsubscribeText(r, "unsubscribe.done", map[string]any{"Email": t.Email})})
}
