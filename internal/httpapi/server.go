// Package httpapi is Carteiro's HTTP transport: routes, authentication, rate
// limits, languages and the error envelope. Handlers decode, call one use
// case and encode; they hold no business rules.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/i18n"
	"github.com/carteiro/carteiro/internal/ratelimit"
)

// ProductPrefix is the base of every Product route (section 9).
const ProductPrefix = "/v1/product"

// Limits are the request-rate rules of D13.
type Limits struct {
	PerKey          ratelimit.Rule
	PerIP           ratelimit.Rule
	DomainDeletions ratelimit.Rule
	// Login bounds dashboard sign-in tries per address and per IP (D73).
	Login ratelimit.Rule
}

// DefaultLimits are D13's defaults.
func DefaultLimits() Limits {
	return Limits{
		PerKey:          ratelimit.Rule{Rate: 50, Period: 1e9, Burst: 100},
		PerIP:           ratelimit.Rule{Rate: 100, Period: 1e9, Burst: 200},
		DomainDeletions: ratelimit.Rule{Rate: 5, Period: 60e9, Burst: 5},
		Login:           ratelimit.Rule{Rate: 5, Period: 60e9, Burst: 5},
	}
}

// Deps are what the HTTP layer needs.
type Deps struct {
	App          *app.App
	Catalog      *i18n.Catalog
	Limiter      ratelimit.Limiter
	Logger       *slog.Logger
	Metrics      *Metrics
	Ready        func(ctx context.Context) error
	OpenAPI      []byte // the API description as JSON
	Clock        carteiro.Clock
	Limits       Limits
	MetricsToken string
	// SecureCookies marks the dashboard's session cookie Secure (the
	// public URL is https).
	SecureCookies bool
	// MaxInflightBytes bounds the request bodies handled at once (D60);
	// 0 means DefaultMaxInflightBytes.
	MaxInflightBytes int64
}

// Server is the HTTP handler of the whole service.
type Server struct {
	Deps
	app      *app.App
	catalog  *i18n.Catalog
	logger   *slog.Logger
	mux      *http.ServeMux
	routes   []Route
	inflight *inflight
	gzip     gzipWriters // the platform's JSON answers (gzipjson.go)
}

// New builds the handler.
func New(d Deps) *Server {
	s := &Server{Deps: d, app: d.App, catalog: d.Catalog, logger: d.Logger, mux: http.NewServeMux(),
		inflight: newInflight(d.MaxInflightBytes)}
	s.routes = s.routeTable()
	s.routes = append(s.routes, s.platformRoutes(s.routes)...)
	for _, rt := range s.routes {
		s.mux.Handle(rt.Method+" "+rt.Path, s.wrapRoute(rt))
	}
	return s
}

// Routes lists every route, for tests that walk the table.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// ServeHTTP runs the outer middleware (request id, logging, metrics, panic
// recovery, language, per-IP limits) and dispatches; unknown routes and
// wrong methods get the envelope (D11).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.outer(w, r, func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := s.mux.Handler(r); pattern != "" {
			s.mux.ServeHTTP(w, r)
			return
		}
		if allow := s.allowedMethods(r); len(allow) > 0 {
			w.Header().Set("Allow", joinComma(allow))
			s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeMethodNotAllowed})
			return
		}
		s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeRouteNotFound})
	})
}

// allowedMethods lists the methods that do have a route for r's path.
func (s *Server) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			allow = append(allow, m)
		}
	}
	return allow
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
