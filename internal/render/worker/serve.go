package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/reactemail"
)

// warmTemplate is rendered once at start, so that a worker's first real
// render pays neither for compiling the runtime and making the engine nor
// for loading Tailwind, which takes over 2 s on a busy two-core machine
// and would otherwise fail the first Tailwind render after every start.
// The price: a worker takes that long to start (in the background after a
// kill).
const warmTemplate = `import { Html, Text, Tailwind } from "@react-email/components";
export default function Warm() { return <Html><Tailwind><Text className="font-bold">warm</Text></Tailwind></Html>; }`

// serve is a worker's life: read the hello, warm the engine, put the
// process under its limits, answer ready, then one request at a time until
// the parent closes stdin. Only a failure to speak to the parent ends it
// with an error; template errors are answers.
func serve(in io.Reader, out io.Writer) error {
	var h hello
	if err := readFrame(in, 1<<20, &h); err != nil {
		return fmt.Errorf("read hello: %w", err)
	}
	// Each request's time budget comes with it, as its context's
	// deadline; the warm render is ours and may take long on a busy
	// machine.
	limits := h.Limits
	limits.Timeout = 0
	r := reactemail.New(limits)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readyWithin)
	_, _, err := r.Render(ctx, warmTemplate, nil, false)
	cancel()
	if err != nil {
		_ = writeFrame(out, ready{Error: "warm render: " + err.Error()})
		return err
	}
	limit, err := confine(h.Headroom)
	if err != nil {
		_ = writeFrame(out, ready{Error: err.Error()})
		return err
	}
	if err := writeFrame(out, ready{PID: os.Getpid(), DataLimit: limit}); err != nil {
		return err
	}
	// A request is a source (at most the API's 512 KB) and variables.
	maxRequest := 16 << 20
	for {
		var req request
		if err := readFrame(in, maxRequest, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		}
		if err := writeFrame(out, handle(r, req)); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// handle runs one request under its time budget. The engine's own limits
// stop most runaway templates cleanly; the process limits set by confine
// and the parent's kill stop the rest.
func handle(r *reactemail.Renderer, req request) response {
	if req.Budget <= 0 {
		return responseFor("", "", &render.RenderError{Reason: "the render took longer than the limit", Limit: "time"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Budget)
	defer cancel()
	switch req.Op {
	case opCheck:
		return responseFor("", "", r.Check(ctx, req.Source))
	case opRender:
		// The props go on as the JSON text they came as, so the template
		// sees their members in the order the caller sent them.
		props := json.RawMessage("{}")
		if len(req.Props) > 0 && !isNullJSON(req.Props) {
			if !isJSONObject(req.Props) {
				return responseFor("", "", &render.RenderError{Reason: "the variables are not a JSON object"})
			}
			props = req.Props
		}
		return responseFor(r.Render(ctx, req.Source, props, req.WantText))
	}
	return response{Failure: "unknown operation " + req.Op}
}

func isNullJSON(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}
