package httpapi

import (
	"net/http"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// Users, API keys and the audit log of the dashboard (owners only, D73).

type userJSON struct {
	ID          string        `json:"id"`
	Email       string        `json:"email"`
	Role        carteiro.Role `json:"role"`
	TOTPEnabled bool          `json:"totpEnabled"`
	CreatedAt   time.Time     `json:"createdAt"`
}

func userOf(u *carteiro.User) userJSON {
	return userJSON{ID: u.ID, Email: u.Email, Role: u.Role, TOTPEnabled: u.TOTPEnabled(), CreatedAt: u.CreatedAt}
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	users, err := s.app.ListUsers(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]userJSON, len(users))
	for i, u := range users {
		out[i] = userOf(u)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email    string        `json:"email"`
		Password string        `json:"password"`
		Role     carteiro.Role `json:"role"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	u, err := s.app.AddUser(r.Context(), principalOf(r.Context()), app.UserRequest{Email: in.Email, Password: in.Password, Role: in.Role})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, userOf(u))
}

func (s *Server) patchUser(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Role carteiro.Role `json:"role"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	u, err := s.app.SetUserRole(r.Context(), principalOf(r.Context()), r.PathValue("id"), in.Role)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, userOf(u))
}

func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request) {
	if err := s.app.DeleteUser(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type apiKeyJSON struct {
	ID         string              `json:"id"`
	Name       string              `json:"name"`
	Prefix     string              `json:"prefix"`
	Mode       carteiro.Mode       `json:"mode"`
	Permission carteiro.Permission `json:"permission"`
	Domain     *string             `json:"domain"`
	DomainID   *string             `json:"domainId"`
	CreatedAt  time.Time           `json:"createdAt"`
	LastUsedAt *time.Time          `json:"lastUsedAt"`
	CreatedBy  string              `json:"createdBy"`
	RevokedAt  *time.Time          `json:"revokedAt,omitempty"`
	Secret     string              `json:"secret,omitempty"`
}

func apiKeyOf(k *carteiro.APIKey, domainID string) apiKeyJSON {
	return apiKeyJSON{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Mode: k.Mode, Permission: k.Permission,
		Domain: optional(k.Domain), DomainID: optional(domainID), CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt,
		CreatedBy: k.CreatedBy, RevokedAt: k.RevokedAt}
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := s.app.ListOrgKeys(r.Context(), principalOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]apiKeyJSON, len(keys))
	for i, k := range keys {
		out[i] = apiKeyOf(k.Key, k.DomainID)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name       string              `json:"name"`
		Mode       carteiro.Mode       `json:"mode"`
		Permission carteiro.Permission `json:"permission"`
		DomainID   *string             `json:"domainId"`
	}
	if err := s.decode(r, &in, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	domainID := ""
	if in.DomainID != nil {
		domainID = *in.DomainID
	}
	nk, err := s.app.CreateOrgKey(r.Context(), principalOf(r.Context()),
		app.KeyRequest{Name: in.Name, Mode: in.Mode, Permission: in.Permission}, domainID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := apiKeyOf(nk.Key, domainID)
	out.Secret = nk.Secret
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request) {
	if err := s.app.RevokeOrgKey(r.Context(), principalOf(r.Context()), r.PathValue("id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type auditJSON struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Target string    `json:"target"`
}

func (s *Server) auditLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := queryLimit(q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	entries, next, err := s.app.AuditLog(r.Context(), principalOf(r.Context()), app.AuditQuery{Before: q.Get("before"), Limit: limit})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]auditJSON, len(entries))
	for i, e := range entries {
		out[i] = auditJSON{At: e.At, Actor: e.Actor, Action: e.Action, Target: e.Target}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "nextCursor": optional(next)})
}
