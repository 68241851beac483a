package httpapi

import (
	"html/template"
	"net/http"
)

// The confirmation page of a sender's verification email (D59), outside
// /v1/product and without a key: the token in the path is the secret. GET
// shows the page and changes nothing, so link scanners verify nobody; its
// button POSTs to the same URL, which verifies the sender. No CSRF token is
// needed: a forged POST would need the token itself.

var senderConfirmPage = template.Must(template.New("sender").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem}</style>
</head><body><h1>{{.Title}}</h1><p>{{.Body}}</p>
{{if .Button}}<form method="post"><button type="submit">{{.Button}}</button></form>{{end}}
</body></html>
`))

type senderConfirmView struct {
	Lang, Title, Body, Button string
}

// writeSenderConfirmPage answers with the page under a policy that allows
// no script, no external resource and forms only to this origin.
func (s *Server) writeSenderConfirmPage(w http.ResponseWriter, r *http.Request, email, bodyID, buttonID string) {
	lang := langOf(r.Context())
	v := senderConfirmView{Lang: string(lang), Title: s.catalog.Text(lang, "sender.confirm.title", nil),
		Body: s.catalog.Text(lang, bodyID, map[string]any{"Email": email})}
	if buttonID != "" {
		v.Button = s.catalog.Text(lang, buttonID, nil)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_ = senderConfirmPage.Execute(w, v)
}

func (s *Server) senderConfirmForm(w http.ResponseWriter, r *http.Request) {
	sd, err := s.app.SenderForToken(r.Context(), r.PathValue("token"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeSenderConfirmPage(w, r, sd.Email, "sender.confirm.ask", "sender.confirm.button")
}

func (s *Server) senderConfirm(w http.ResponseWriter, r *http.Request) {
	sd, err := s.app.ConfirmSender(r.Context(), r.PathValue("token"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeSenderConfirmPage(w, r, sd.Email, "sender.confirm.done", "")
}
