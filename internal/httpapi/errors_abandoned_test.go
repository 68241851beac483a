package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request whose client hung up fails with its own context's
// cancellation: that is logged as information, not as an error an operator
// would be paged for; a cancellation the client did not cause stays an error.
func TestAbandonedRequestIsNotLoggedAsAnError(t *testing.T) {
	for _, tc := range []struct {
		name       string
		clientGone bool
		want       string
	}{
		{"client hung up", true, `level=INFO msg="request abandoned by the client"`},
		{"client still there", false, `level=ERROR msg="request failed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := testServer(t)
			s.logger = slog.New(slog.NewTextHandler(&logs, nil))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := httptest.NewRequest("GET", "/x", nil).WithContext(ctx)
			w := httptest.NewRecorder()
			s.outer(w, r, func(w http.ResponseWriter, r *http.Request) {
				if tc.clientGone {
					cancel()
				}
				s.writeError(w, r, fmt.Errorf("store: session: %w", context.Canceled))
			})
			if !strings.Contains(logs.String(), tc.want) {
				t.Fatalf("log %q does not contain %q", logs.String(), tc.want)
			}
			if w.Code != http.StatusInternalServerError {
				t.Fatalf("status %d, want 500", w.Code)
			}
		})
	}
	if clientLeft(httptest.NewRequest("GET", "/x", nil), errors.New("boom")) {
		t.Fatal("an unrelated error counted as the client leaving")
	}
}
