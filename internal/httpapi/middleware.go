package httpapi

import (
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/i18n"
	"github.com/carteiro/carteiro/internal/logctx"
	"github.com/carteiro/carteiro/internal/ratelimit"
)

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// outer wraps every request: id, language, logging, metrics, panic recovery
// and the per-IP limit, whose headers every response carries (D13).
func (s *Server) outer(w http.ResponseWriter, r *http.Request, next http.HandlerFunc) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if id == "" || len(id) > 128 || strings.ContainsAny(id, "\r\n") {
		id = uuid.Must(uuid.NewV7()).String()
	}
	info := &requestInfo{lang: i18n.Match(r.Header.Get("Accept-Language")), route: "unmatched"}
	ctx := withInfo(logctx.WithRequestID(r.Context(), id), info)
	r = r.WithContext(ctx)
	sw := &statusWriter{ResponseWriter: w}
	sw.Header().Set("X-Request-Id", id)
	sw.Header().Set("Content-Language", string(info.lang))

	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logger.ErrorContext(ctx, "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if sw.status == 0 {
				s.writeError(sw, r, &carteiro.Error{Code: carteiro.CodeInternal})
			}
		}
		elapsed := time.Since(start)
		s.Metrics.observe(r.Method, info.route, sw.status, elapsed)
		path := r.URL.Path
		if info.loggedPath != "" {
			path = info.loggedPath
		}
		s.logger.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", path), slog.String("route", info.route),
			slog.Int("status", sw.status), durationMS(elapsed))
	}()

	if !s.limit(sw, r, "ip:"+clientIP(r), s.Limits.PerIP, nil) {
		return
	}
	next(sw, r)
}

// wrapRoute adds what a matched route needs: its name for logs and metrics,
// authentication, the per-key limit and any route-specific limit.
func (s *Server) wrapRoute(rt Route) http.Handler {
	name := rt.Method + " " + rt.Path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r.Context())
		info.route = name
		if rt.secretPath {
			info.loggedPath = rt.Path
		}
		if rt.Auth || rt.Session {
			authenticate, scope := s.authenticate, func(p *app.Principal) string { return "key:" + p.Key.ID }
			if rt.Session {
				authenticate, scope = s.authenticateSession, func(p *app.Principal) string { return "user:" + p.User.ID }
			}
			p, err := authenticate(r)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			info.principal = p
			prev := s.lastResult(w)
			if !s.limit(w, r, scope(p), s.Limits.PerKey, prev) {
				return
			}
			if rt.limit != nil {
				prev = s.lastResult(w)
				if !s.limit(w, r, rt.limit.name+":"+p.Org.ID, rt.limit.rule(s), prev) {
					return
				}
			}
		}
		// D60: the bodies being handled at once are bounded; past the
		// bound a request waits up to 5 s, then gets a 503.
		admitted, release, err := s.inflight.admit(r)
		if err != nil {
			s.writeError(w, r, inflightErr(err))
			return
		}
		defer release()
		if rt.Session {
			var done func()
			w, done = s.gzip.gzipJSON(w, admitted)
			defer done()
		}
		rt.handler(w, admitted)
	})
}

// authenticate reads `Authorization: Bearer <key>` (section 5, D11).
func (s *Server) authenticate(r *http.Request) (*app.Principal, error) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
		return nil, &carteiro.Error{Code: carteiro.CodeMissingAPIKey}
	}
	return s.app.Authenticate(r.Context(), strings.TrimSpace(key))
}

// limit applies rule to key, sets the X-RateLimit-* headers for the scope
// nearest its limit (combined with prev, the result of an outer scope) and
// answers 429 when refused.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, key string, rule ratelimit.Rule, prev *ratelimit.Result) bool {
	res, err := s.Limiter.Allow(r.Context(), key, rule)
	if err != nil {
		s.logger.WarnContext(r.Context(), "rate limiter unavailable; request allowed", "err", err)
		return true
	}
	shown := res
	if prev != nil {
		shown = ratelimit.Tighter(*prev, res)
	}
	setRateHeaders(w, shown)
	if !res.Allowed {
		w.Header().Set("Retry-After", strconv.Itoa(ceilSeconds(res.RetryAfter)))
		s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeRateLimited})
		return false
	}
	return true
}

// lastResult reads back the headers an outer scope set, so an inner scope
// can report whichever is nearer its limit.
func (s *Server) lastResult(w http.ResponseWriter) *ratelimit.Result {
	h := w.Header()
	limit, err1 := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	reset, err3 := strconv.Atoi(h.Get("X-RateLimit-Reset"))
	if err1 != nil || err2 != nil || err3 != nil {
		return nil
	}
	return &ratelimit.Result{Allowed: true, Limit: limit, Remaining: remaining, Reset: time.Duration(reset) * time.Second}
}

func setRateHeaders(w http.ResponseWriter, res ratelimit.Result) {
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, res.Remaining)))
	h.Set("X-RateLimit-Reset", strconv.Itoa(ceilSeconds(res.Reset)))
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}

// clientIP is the peer address; forwarded headers are not trusted, since a
// client could set them to dodge its limit.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// durationMS is a duration as operators read it in logs (D72):
// milliseconds, with microsecond precision, in both log formats.
func durationMS(d time.Duration) slog.Attr {
	return slog.Float64("duration_ms", float64(d.Microseconds())/1000)
}

// Around runs next inside the outer middleware under the route name given,
// for handlers served beside the API (the dashboard's pages, D73): their
// requests get the same request id, log line, metrics, per-IP limit and
// panic recovery as the API's. With secretPath the log shows the route
// instead of the path, which carries a secret token.
func (s *Server) Around(route string, secretPath bool, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.outer(w, r, func(w http.ResponseWriter, r *http.Request) {
			info := infoOf(r.Context())
			info.route = route
			if secretPath {
				info.loggedPath = route
			}
			next(w, r)
		})
	}
}
