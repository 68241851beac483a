package httpapi

import (
	"compress/gzip"
	"net/http"
	"strings"
	"sync"

	"github.com/carteiro/carteiro/internal/dashboard"
)

// The dashboard's platform answers are JSON of tens of KiB (50 emails of
// the log are 41-43 KiB) that compress several times over, like the
// dashboard's own files, which are served gzipped (issue 26). Only JSON
// is compressed: attachments and other bytes go as they are.

// gzipWriters reuses compressors, whose buffers are large.
type gzipWriters struct{ pool sync.Pool }

func (g *gzipWriters) get(w http.ResponseWriter) *gzip.Writer {
	if zw, ok := g.pool.Get().(*gzip.Writer); ok {
		zw.Reset(w)
		return zw
	}
	return gzip.NewWriter(w)
}

// gzipJSON wraps w so that a JSON answer to r is gzipped when r accepts it;
// done must be called once the handler has returned.
func (g *gzipWriters) gzipJSON(w http.ResponseWriter, r *http.Request) (_ http.ResponseWriter, done func()) {
	w.Header().Add("Vary", "Accept-Encoding")
	if !dashboard.AcceptsGzip(r) {
		return w, func() {}
	}
	jw := &gzipJSONWriter{ResponseWriter: w, writers: g}
	return jw, jw.close
}

// gzipJSONWriter decides at its first header write: a JSON answer with a
// body goes through a gzip.Writer, anything else as it is.
type gzipJSONWriter struct {
	http.ResponseWriter
	writers *gzipWriters
	zw      *gzip.Writer
	decided bool
}

func (g *gzipJSONWriter) WriteHeader(status int) {
	if !g.decided {
		g.decided = true
		h := g.Header()
		if strings.HasPrefix(h.Get("Content-Type"), "application/json") && h.Get("Content-Encoding") == "" &&
			status != http.StatusNoContent && status != http.StatusNotModified {
			h.Set("Content-Encoding", "gzip")
			h.Del("Content-Length")
			g.zw = g.writers.get(g.ResponseWriter)
		}
	}
	g.ResponseWriter.WriteHeader(status)
}

func (g *gzipJSONWriter) Write(p []byte) (int, error) {
	if !g.decided {
		g.WriteHeader(http.StatusOK)
	}
	if g.zw != nil {
		return g.zw.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// Flush sends what is compressed so far, for answers that stream.
func (g *gzipJSONWriter) Flush() {
	if g.zw != nil {
		_ = g.zw.Flush()
	}
	_ = http.NewResponseController(g.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (g *gzipJSONWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func (g *gzipJSONWriter) close() {
	if g.zw == nil {
		return
	}
	_ = g.zw.Close()
	g.writers.pool.Put(g.zw)
	g.zw = nil
}
