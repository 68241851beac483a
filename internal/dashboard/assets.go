package dashboard

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var files embed.FS

// asset is one embedded file, with its gzip form made once at start so a
// page costs no compression work per request.
type asset struct {
	body, gzipped []byte
	contentType   string
	etag          string
}

type assets struct {
	byName map[string]*asset
	index  []byte // assets/index.html, a template with {{LANG}}
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]*asset{}}
	err := fs.WalkDir(files, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name, "assets/")
		if rel == "index.html" {
			a.index = body
			return nil
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(rel))
		if ct == "" {
			ct = "application/octet-stream"
		}
		a.byName[rel] = &asset{body: body, gzipped: gz.Bytes(), contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard assets: %w", err)
	}
	if a.index == nil {
		return nil, fmt.Errorf("dashboard assets: index.html missing")
	}
	return a, nil
}

func (a *assets) serve(w http.ResponseWriter, r *http.Request, name string) {
	f, ok := a.byName[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("Content-Security-Policy", pageCSP)
	// Revalidated on every load (cheap 304s): the files change with the
	// binary and their names carry no version.
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("ETag", f.etag)
	hdr.Add("Vary", "Accept-Encoding")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if AcceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		body = f.gzipped
	}
	hdr.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// AcceptsGzip says whether the request's Accept-Encoding allows gzip; the
// platform's JSON answers ask it too (httpapi).
func AcceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
