package httpapi

import (
	"net/http"
	"strings"
)

// platformRoutes are the dashboard's routes (D73): its own (sign-in,
// users, API keys, audit) and every product route again under
// /v1/platform, same handlers and shapes, authenticated by the session
// instead of an API key.
func (s *Server) platformRoutes(product []Route) []Route {
	pp := PlatformPrefix
	routes := []Route{
		{Method: http.MethodGet, Path: pp + "/setup/{token}", handler: s.setupInfo, secretPath: true},
		{Method: http.MethodPost, Path: pp + "/setup/{token}", handler: s.completeSetup, secretPath: true},
		{Method: http.MethodPost, Path: pp + "/login", handler: s.login},
		{Method: http.MethodPost, Path: pp + "/logout", Session: true, handler: s.logout},
		{Method: http.MethodGet, Path: pp + "/me", Session: true, handler: s.me},
		{Method: http.MethodPatch, Path: pp + "/me", Session: true, handler: s.patchMe},
		{Method: http.MethodPost, Path: pp + "/me/password", Session: true, handler: s.changePassword},
		{Method: http.MethodPost, Path: pp + "/me/totp", Session: true, handler: s.beginTOTP},
		{Method: http.MethodPost, Path: pp + "/me/totp/confirm", Session: true, handler: s.confirmTOTP},
		{Method: http.MethodPost, Path: pp + "/me/totp/disable", Session: true, handler: s.disableTOTP},

		{Method: http.MethodGet, Path: pp + "/users", Session: true, handler: s.listUsers},
		{Method: http.MethodPost, Path: pp + "/users", Session: true, handler: s.createUser},
		{Method: http.MethodPatch, Path: pp + "/users/{id}", Session: true, handler: s.patchUser},
		{Method: http.MethodDelete, Path: pp + "/users/{id}", Session: true, handler: s.deleteUser},

		{Method: http.MethodGet, Path: pp + "/api-keys", Session: true, handler: s.listAPIKeys},
		{Method: http.MethodPost, Path: pp + "/api-keys", Session: true, handler: s.createAPIKey},
		{Method: http.MethodDelete, Path: pp + "/api-keys/{id}", Session: true, handler: s.revokeAPIKey},

		{Method: http.MethodGet, Path: pp + "/audit", Session: true, handler: s.auditLog},

		{Method: http.MethodGet, Path: pp + "/emails/{id}/details", Session: true, handler: s.emailDetails},
	}
	for _, rt := range product {
		if !rt.Auth || !strings.HasPrefix(rt.Path, ProductPrefix+"/") {
			continue
		}
		rt.Path = pp + strings.TrimPrefix(rt.Path, ProductPrefix)
		rt.Auth, rt.Session = false, true
		if rt.Method == http.MethodDelete && rt.Path == pp+"/domains/{id}" {
			// The reauthentication is the user's own password (and code).
			rt.handler = s.deleteDomainAsUser
		}
		routes = append(routes, rt)
	}
	return routes
}
