package main

import (
	"context"
	"fmt"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/server"
)

// signIn creates n members of the organization and opens a session for
// each through app.Login, the use case POST /v1/platform/login calls; the
// route itself allows 5 sign-ins a minute per client IP (D73), and every
// user here comes from 127.0.0.1. It returns the session cookies' values.
func signIn(ctx context.Context, srv *server.Server, orgID string, n int) ([]string, error) {
	const password = "dashboard-bench-password"
	sessions := make([]string, n)
	for i := range n {
		email := fmt.Sprintf("user%d@dashboard.bench.example", i)
		if _, err := srv.App.CreateUser(ctx, app.UserRequest{OrgID: orgID, Email: email, Password: password, Role: carteiro.RoleMember}); err != nil {
			return nil, fmt.Errorf("create user %s: %w", email, err)
		}
		s, err := srv.App.Login(ctx, email, password, "")
		if err != nil {
			return nil, fmt.Errorf("sign in %s: %w", email, err)
		}
		sessions[i] = s.ID
	}
	return sessions, nil
}
