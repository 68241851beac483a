package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// PlatformPrefix is the base of the dashboard's routes (section 1, D73).
const PlatformPrefix = "/v1/platform"

// SessionCookie names the dashboard's session cookie (D73).
const SessionCookie = "carteiro_session"

// CSRFHeader carries the session's CSRF token on every unsafe method.
const CSRFHeader = "X-CSRF-Token"

// ModeHeader chooses live or test data on the dashboard's product routes.
const ModeHeader = "X-Carteiro-Mode"

// authenticateSession resolves the session cookie and, for unsafe
// methods, checks the CSRF header: SameSite=Strict already keeps other
// sites' requests from carrying the cookie, and the header, which no
// other site can read or set, is the second lock (docs/security.md).
func (s *Server) authenticateSession(r *http.Request) (*app.Principal, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, &carteiro.Error{Code: carteiro.CodeUnauthorized}
	}
	mode := carteiro.Mode(r.Header.Get(ModeHeader))
	if mode == "" {
		mode = carteiro.ModeLive
	}
	p, err := s.app.SessionPrincipal(r.Context(), c.Value, mode)
	if err != nil {
		return nil, err
	}
	if unsafeMethod(r.Method) && !p.CSRFMatches(r.Header.Get(CSRFHeader)) {
		return nil, &carteiro.Error{Code: carteiro.CodeForbidden, Details: map[string]any{"reason": "csrf"}}
	}
	return p, nil
}

func unsafeMethod(m string) bool {
	return m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions
}

// crossSite reports a request a browser sent from another site: the
// login and setup forms have no session to carry a CSRF token yet, so
// they refuse those instead (login CSRF would sign a victim in to the
// attacker's account).
func crossSite(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host != r.Host
}

// setSessionCookie gives the browser its session: HttpOnly so no script
// reads it, SameSite=Strict so no other site's request carries it, Secure
// when the public URL is https, and no longer-lived than the session.
func (s *Server) setSessionCookie(w http.ResponseWriter, id string) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.SecureCookies, MaxAge: int(carteiro.SessionMaxAge / time.Second)})
}

// clearSessionCookie tells the browser to forget its session.
func (s *Server) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.SecureCookies, MaxAge: -1})
}
