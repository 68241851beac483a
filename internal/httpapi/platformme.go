package httpapi

import (
	"net/http"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// The dashboard's sign-in, first-start setup and own-account routes (D73).

type meJSON struct {
	ID               string        `json:"id"`
	Email            string        `json:"email"`
	Role             carteiro.Role `json:"role"`
	OrganizationID   string        `json:"organizationId"`
	OrganizationName string        `json:"organizationName"`
	Language         string        `json:"language"`
	TOTPEnabled      bool          `json:"totpEnabled"`
}

type sessionJSON struct {
	User      meJSON `json:"user"`
	CSRFToken string `json:"csrfToken"`
}

func (s *Server) meOf(r *http.Request, u *carteiro.User, org *carteiro.Organization) meJSON {
	lang := u.Language
	if lang == "" {
		lang = string(langOf(r.Context()))
	}
	return meJSON{ID: u.ID, Email: u.Email, Role: u.Role, OrganizationID: org.ID, OrganizationName: org.Name,
		Language: lang, TOTPEnabled: u.TOTPEnabled()}
}

// signedIn answers a new session: the cookie, the user and the CSRF token.
func (s *Server) signedIn(w http.ResponseWriter, r *http.Request, status int, ns *app.NewSession) {
	s.setSessionCookie(w, ns.ID)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, sessionJSON{User: s.meOf(r, ns.User, ns.Org), CSRFToken: ns.Session.CSRFToken})
}

func (s *Server) setupInfo(w http.ResponseWriter, r *http.Request) {
	org, err := s.app.SetupOrganization(r.Context(), r.PathValue("token"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"organizationName": org.Name})
}

type credentialsInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	TOTPCode string `json:"totpCode"`
}

func (s *Server) completeSetup(w http.ResponseWriter, r *http.Request) {
	if crossSite(r) {
		s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeForbidden, Details: map[string]any{"reason": "csrf"}})
		return
	}
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	ns, err := s.app.CompleteSetup(r.Context(), r.PathValue("token"), in.Email, in.Password)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.signedIn(w, r, http.StatusCreated, ns)
}

// login is limited to Limits.Login tries per address and per IP (D73),
// counted before the password is checked, so the 6th try in a minute is
// refused whatever it carries.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if crossSite(r) {
		s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeForbidden, Details: map[string]any{"reason": "csrf"}})
		return
	}
	var in credentialsInput
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.loginAllowed(w, r, in.Email) {
		return
	}
	ns, err := s.app.Login(r.Context(), in.Email, in.Password, in.TOTPCode)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.signedIn(w, r, http.StatusOK, ns)
}

// loginAllowed applies the login limit to the caller's IP and to the
// address tried (case folded, as login folds it).
func (s *Server) loginAllowed(w http.ResponseWriter, r *http.Request, email string) bool {
	if !s.limit(w, r, "login-ip:"+clientIP(r), s.Limits.Login, nil) {
		return false
	}
	return s.limit(w, r, "login-email:"+foldEmail(email), s.Limits.Login, s.lastResult(w))
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := s.app.Logout(r.Context(), principalOf(r.Context())); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.clearSessionCookie(w)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, sessionJSON{User: s.meOf(r, p.User, p.Org), CSRFToken: p.Session.CSRFToken})
}

func (s *Server) patchMe(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Language *string `json:"language"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	u := p.User
	if in.Language != nil {
		var err error
		if u, err = s.app.SetLanguage(r.Context(), p, *in.Language); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, sessionJSON{User: s.meOf(r, u, p.Org), CSRFToken: p.Session.CSRFToken})
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CurrentPassword string `json:"currentPassword"`
		NewPassword     string `json:"newPassword"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.app.ChangePassword(r.Context(), principalOf(r.Context()), in.CurrentPassword, in.NewPassword); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) beginTOTP(w http.ResponseWriter, r *http.Request) {
	secret, url, err := s.app.BeginTOTP(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"secret": secret, "otpauthUrl": url})
}

func (s *Server) confirmTOTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.app.ConfirmTOTP(r.Context(), principalOf(r.Context()), in.Code); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) disableTOTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
		TOTPCode string `json:"totpCode"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.app.DisableTOTP(r.Context(), principalOf(r.Context()), in.Password, in.TOTPCode); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// deleteDomainAsUser is DELETE /domains/{id} for the dashboard: the
// reauthentication is the user's password, and TOTP code when on.
func (s *Server) deleteDomainAsUser(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
		TOTPCode string `json:"totpCode"`
	}
	if err := s.decode(r, &in, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	re := app.Reauth{Method: "password", Credential: in.Password, TOTPCode: in.TOTPCode}
	if err := s.app.DeleteDomain(r.Context(), principalOf(r.Context()), r.PathValue("id"), re); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// foldEmail is the login limit's key for an address: login ignores case
// and surrounding spaces, so the limit does too.
func foldEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
