package worker

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

// The parent and a worker speak in frames on the worker's stdin and stdout:
// a 4-byte big-endian length, then that many bytes of JSON. The first frame
// is the parent's hello (the limits), answered by the worker's ready; then
// one request and one response at a time.

// hello configures a worker before it runs any template.
type hello struct {
	Limits render.Limits `json:"limits"`
	// Headroom is what the worker may map on top of its warm baseline: a
	// render's memory plus room for the templates it keeps (D61).
	Headroom int64 `json:"headroom"`
}

// ready answers hello once the engine is warm and the limits are set.
type ready struct {
	PID int `json:"pid"`
	// DataLimit is the RLIMIT_DATA the worker set on itself.
	DataLimit int64  `json:"dataLimit"`
	Error     string `json:"error,omitempty"`
}

// Operations a request can ask for.
const (
	opRender = "render"
	opCheck  = "check"
)

// request is one render or check.
type request struct {
	Op       string          `json:"op"`
	Source   string          `json:"source"`
	Props    json.RawMessage `json:"props,omitempty"`
	WantText bool            `json:"wantText,omitempty"`
	// Budget is what is left of the render's time limit when the worker
	// gets the request.
	Budget time.Duration `json:"budget"`
}

// response carries the result or the error of a request.
type response struct {
	HTML   string       `json:"html,omitempty"`
	Text   string       `json:"text,omitempty"`
	Syntax *syntaxError `json:"syntax,omitempty"`
	Render *renderError `json:"render,omitempty"`
	// Failure is any other error, not meant for the template's owner.
	Failure string `json:"failure,omitempty"`
}

type syntaxError struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Reason string `json:"reason"`
}

type renderError struct {
	Reason string `json:"reason"`
	Limit  string `json:"limit,omitempty"`
}

// responseFor packs a result or an error.
func responseFor(html, text string, err error) response {
	var se *render.SyntaxError
	var re *render.RenderError
	switch {
	case err == nil:
		return response{HTML: html, Text: text}
	case errors.As(err, &se):
		return response{Syntax: &syntaxError{Line: se.Line, Column: se.Column, Reason: se.Reason}}
	case errors.As(err, &re):
		return response{Render: &renderError{Reason: re.Reason, Limit: re.Limit}}
	}
	return response{Failure: err.Error()}
}

// result unpacks a response.
func (r response) result() (html, text string, err error) {
	switch {
	case r.Syntax != nil:
		return "", "", &render.SyntaxError{Line: r.Syntax.Line, Column: r.Syntax.Column, Reason: r.Syntax.Reason}
	case r.Render != nil:
		return "", "", &render.RenderError{Reason: r.Render.Reason, Limit: r.Render.Limit}
	case r.Failure != "":
		return "", "", fmt.Errorf("render worker: %s", r.Failure)
	}
	return r.HTML, r.Text, nil
}

func writeFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	_, err = w.Write(buf)
	return err
}

// errFrameTooLarge is a frame over the reader's bound.
var errFrameTooLarge = errors.New("render worker: frame over the size bound")

// readFrame reads one frame of at most maxBytes into v.
func readFrame(r io.Reader, maxBytes int, v any) error {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(size[:])
	if int64(n) > int64(maxBytes) {
		return errFrameTooLarge
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}
