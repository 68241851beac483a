package reactemail

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/render"
)

const okTemplate = `import { Html, Text } from "@react-email/components";
export default function Ok({ name }) { return <Html><Text>Hello {name}</Text></Html>; }`

// TestHostileTemplatesFailCleanly runs templates that loop, allocate without
// end, recurse, reach for the host or pollute shared prototypes (D37): each
// fails with a render error within twice the time limit, and a normal
// render right after still succeeds and is untouched. The limit is 3 s
// (the default is 2 s, D37) rather than a short one: what a render costs on top of its
// limit (compiling the template, the interrupt reaching the engine) grows
// when CI runs other packages' tests on the same two cores, and once took
// 1.15 s, which only a longer limit leaves room for under twice the limit.
func TestHostileTemplatesFailCleanly(t *testing.T) {
	limits := render.Limits{Timeout: 3 * time.Second, MemoryBytes: 64 << 20, OutputBytes: 16 << 10}
	r := New(limits)
	defer r.Close()
	// Start an engine first: making one is not part of a render's time.
	if _, _, err := r.Render(context.Background(), okTemplate, nil, false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, body string
		limit      string // the limit named in the error, "*" for any, "" for a plain error
		reason     string // part of the reason, when no limit applies
		// timeout, when set, replaces the 3 s time limit: the memory guard
		// must stop the doubling string before any time limit, but on a
		// loaded machine under -race the doubling takes over a second.
		timeout time.Duration
	}{
		{"infinite loop", `while (true) {}`, "time", "", 0},
		{"infinite loop in an effectless promise chain", `const spin = () => Promise.resolve().then(spin); spin(); while (true) {}`, "time", "", 0},
		{"huge repeat", `const s = "x".repeat(1e9); return <Html>{s}</Html>;`, "memory", "memory limit", 0},
		{"huge padStart", `const s = "".padStart(2e9, "y"); return <Html>{s}</Html>;`, "memory", "memory limit", 0},
		{"doubling string", `let s = "xxxxxxxx"; for (let i = 0; i < 40; i++) s += s; return <Html>{s}</Html>;`, "memory", "", time.Minute},
		{"array growth", `const a = []; while (true) a.push({ i: a.length, s: "abcdefgh" + a.length });`, "*", "", 0},
		{"unbounded recursion", `const f = (n) => f(n + 1) + 1; f(0);`, "", "recursion", 0},
		{"recursive component", `const Loop = () => <Loop />; return <Loop />;`, "", "", 0},
		{"output over the cap", `return <Html>{"z".repeat(20000)}</Html>;`, "output", "", 0},
		{"require", `(0, eval)("require")("fs");`, "", "require is not defined", 0},
		{"process", `process.env.HOME;`, "", "process is not defined", 0},
		{"fetch", `fetch("http://127.0.0.1/");`, "", "fetch is not defined", 0},
		{"prototype pollution", `Object.prototype.polluted = "yes";`, "", "", 0},
		{"array prototype pollution", `Array.prototype.map = function () { return []; };`, "", "", 0},
		{"global pollution", `globalThis.leak = "secret";`, "", "", 0},
		{"runtime pollution", `const r = React; r.default.createElement = () => null;`, "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := `import * as React from "react"; import { Html, Text } from "@react-email/components";
"use strict";
export default function Hostile() { ` + c.body + `
return <Html><Text>unreachable</Text></Html>; }`
			renderer, limit := r, limits.Timeout
			if c.timeout > 0 {
				l := limits
				l.Timeout, limit = c.timeout, c.timeout
				renderer = New(l)
				defer renderer.Close()
			}
			start := time.Now()
			_, _, err := renderer.Render(context.Background(), src, nil, true)
			elapsed := time.Since(start)
			var re *render.RenderError
			if !errors.As(err, &re) {
				t.Fatalf("want a render error, got %v", err)
			}
			if c.limit == "*" && re.Limit == "" || c.limit != "" && c.limit != "*" && re.Limit != c.limit {
				t.Errorf("want the %s limit, got %+v", c.limit, re)
			}
			if c.reason != "" && !strings.Contains(re.Reason, c.reason) {
				t.Errorf("want a reason with %q, got %q", c.reason, re.Reason)
			}
			if elapsed > 2*limit {
				t.Errorf("took %v, over twice the %v limit", elapsed, limit)
			}
			html, _, err := r.Render(context.Background(), okTemplate, map[string]any{"name": "Ana"}, false)
			if err != nil || !strings.Contains(html, "Hello <!-- -->Ana") {
				t.Fatalf("a normal render after it: %v %q", err, html)
			}
			if strings.Contains(html, "yes") || strings.Contains(html, "secret") {
				t.Fatalf("the hostile render leaked into the next: %q", html)
			}
		})
	}
}

// TestSyntaxErrorsCarryPosition checks D39's line and column for JSX that
// does not parse and for imports the runtime does not offer.
func TestSyntaxErrorsCarryPosition(t *testing.T) {
	r := New(render.DefaultLimits())
	defer r.Close()
	cases := []struct {
		src          string
		line, column int
		reason       string
	}{
		{"export default function A() {\n  return <Html><Text>hi</Html>;\n}", 2, 26, "Unexpected closing"},
		{"import { Carousel } from \"@react-email/components\";\nexport default () => Carousel;", 1, 10, "No matching export"},
		{"import fs from \"fs\";\nexport default () => fs;", 1, 16, "cannot import \"fs\""},
		{"export const x = 1;", 0, 0, "no default export"},
	}
	for _, c := range cases {
		err := r.Check(context.Background(), c.src)
		var se *render.SyntaxError
		var re *render.RenderError
		switch {
		case errors.As(err, &se):
			if se.Line != c.line || se.Column != c.column || !strings.Contains(se.Reason, c.reason) {
				t.Errorf("%q: got %d:%d %q, want %d:%d %q", c.src, se.Line, se.Column, se.Reason, c.line, c.column, c.reason)
			}
		case errors.As(err, &re) && c.line == 0:
			if !strings.Contains(re.Reason, c.reason) {
				t.Errorf("%q: got %q, want %q", c.src, re.Reason, c.reason)
			}
		default:
			t.Errorf("%q: unexpected %v", c.src, err)
		}
	}
}
