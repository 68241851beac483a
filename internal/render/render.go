package render

import (
	"fmt"
	"time"
)

// Format is the language of a template's source (D37): Handlebars-flavoured
// HTML or React Email JSX/TSX. The wire spellings "handlebars" and
// "react_email" are mapped to these by the API layer.
type Format string

const (
	// Handlebars is HTML with handlebars.js 4.x syntax.
	Handlebars Format = "html"
	// React is React Email source: JSX/TSX whose default export is the
	// component; its props are the variables.
	React Format = "react"
)

// Limits bound one render of untrusted template code (D37).
type Limits struct {
	// Timeout ends a render that runs longer (D37: 2 s).
	Timeout time.Duration
	// MemoryBytes caps what one render may allocate (D37: 64 MB).
	MemoryBytes int64
	// OutputBytes caps the size of the rendered document (D37: 5 MB).
	OutputBytes int
}

// DefaultLimits are D37's defaults.
func DefaultLimits() Limits {
	return Limits{Timeout: 2 * time.Second, MemoryBytes: 64 << 20, OutputBytes: 5 << 20}
}

// SyntaxError reports source that cannot be parsed or compiled; the API
// answers it as 422 TEMPLATE_SYNTAX_ERROR with {line, column, reason} (D39).
// Line and Column count from 1; 0 means unknown.
type SyntaxError struct {
	Line   int
	Column int
	Reason string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("template syntax error at %d:%d: %s", e.Line, e.Column, e.Reason)
}

// RenderError reports a render that failed at run time: a thrown exception,
// a missing helper or partial, or a limit of D37 (time, memory, output size).
// The API answers it as 422 TEMPLATE_RENDER_ERROR; at send time the email is
// marked failed with Error() as its lastError. Reason is safe to show to the
// template's owner: it never carries Go internals.
type RenderError struct {
	Reason string
	// Limit names the limit that was hit ("time", "memory", "output"), or "".
	Limit string
}

func (e *RenderError) Error() string {
	if e.Limit != "" {
		return "template render error: " + e.Limit + " limit exceeded: " + e.Reason
	}
	return "template render error: " + e.Reason
}
