package httpapi

import (
	"crypto/subtle"
	"net/http"

	"github.com/carteiro/carteiro"
)

// Operational routes of D58, outside /v1/product and without API keys.

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.Ready(r.Context()); err != nil {
		s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeServiceUnavailable, Err: err})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	if s.MetricsToken != "" {
		got := r.Header.Get("Authorization")
		if got == "" {
			s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeMissingAPIKey})
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte("Bearer "+s.MetricsToken)) != 1 {
			s.writeError(w, r, &carteiro.Error{Code: carteiro.CodeInvalidAPIKey})
			return
		}
	}
	s.Metrics.handler().ServeHTTP(w, r)
}

// openAPI serves the API description. It needs no key: it describes the
// contract and holds no data (docs/api-notes.md).
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(s.OpenAPI)
}
