package e2e

import (
	"bytes"
	"mime"
	"net/http"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/testserver"
)

const templatesPath = "/v1/product/templates"

func templateReq(ts *testserver.TestServer, t *testing.T, method, path string, body any) *testserver.Response {
	t.Helper()
	return ts.Do(t, testserver.Request{Method: method, Path: templatesPath + path, Key: ts.LiveKey, Body: body})
}

func TestTemplatesCRUD(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := templateReq(ts, t, "POST", "", map[string]any{
			"name": "welcome", "subject": "Bem-vindo, {{name}}", "format": "handlebars",
			"html": "<h1>Olá {{name}}</h1><p>{{plan}}</p>", "text": "Olá {{name}}",
			"variables": []map[string]any{{"name": "name"}, {"name": "plan", "defaultValue": "grátis"}},
		})
		testserver.Expect(t, r, http.StatusCreated, "")
		created := r.JSON(t)
		id := created["id"].(string)
		testserver.Must(t, created["format"] == "html" && created["textPayload"] == "Olá {{name}}" && created["isActive"] == true &&
			created["sourceLocale"] == "en" && created["starterSlug"] == nil && created["subject"] == "Bem-vindo, {{name}}" &&
			created["createdAt"] == created["updatedAt"], "created %v", created)
		vars := created["variables"].([]any)
		testserver.Must(t, len(vars) == 2 && vars[1].(map[string]any)["defaultValue"] == "grátis", "variables %v", vars)

		// D38: names are unique per organization.
		testserver.Expect(t, templateReq(ts, t, "POST", "", map[string]any{"name": "welcome", "html": "x"}), 409, "CONFLICT")
		// D11: each invalid input is a 422 naming the field, and nothing is stored.
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"html": "x"}, "name"},
			{map[string]any{"name": "n"}, "html"},
			{map[string]any{"name": "", "html": "x"}, "name"},
			{map[string]any{"name": strings.Repeat("n", 256), "html": "x"}, "name"},
			{map[string]any{"name": "n", "html": "x", "format": "mjml"}, "format"},
			{map[string]any{"name": "n", "html": "x", "subject": "a\r\nBcc: x@y.example"}, "subject"},
			{map[string]any{"name": "n", "html": "x", "variables": []map[string]any{{"name": "a"}, {"name": "a"}}}, "variables[1].name"},
			{map[string]any{"name": "n", "html": "x", "variables": []map[string]any{{"defaultValue": "a"}}}, "variables[0].name"},
			{map[string]any{"name": "n", "html": "x", "text": "a", "textPayload": "b"}, "textPayload"},
			{map[string]any{"name": "n", "html": "x", "color": "red"}, "color"},
		} {
			r := templateReq(ts, t, "POST", "", c.body)
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			testserver.Must(t, r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)["field"] == c.field, "%v: %s", c.body, r.Body)
		}
		// D39: a source that does not compile is refused with where and why.
		r = templateReq(ts, t, "POST", "", map[string]any{"name": "broken", "html": "<p>\n{{#if a}}open</p>"})
		testserver.Expect(t, r, 422, "TEMPLATE_SYNTAX_ERROR")
		details := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		testserver.Must(t, details["line"].(float64) >= 1 && details["reason"] != "", "syntax details %v", details)

		list := templateReq(ts, t, "GET", "", nil)
		testserver.Expect(t, list, 200, "")
		data := list.JSON(t)["data"].([]any)
		testserver.Must(t, len(data) == 1 && data[0].(map[string]any)["html"] == "<h1>Olá {{name}}</h1><p>{{plan}}</p>", "list %s", list.Body)

		// PATCH changes only what is sent; null clears.
		ts.Clock.Advance(time.Minute)
		r = templateReq(ts, t, "PATCH", "/"+id, map[string]any{"subject": nil, "isActive": false, "format": "html"})
		testserver.Expect(t, r, 200, "")
		got := r.JSON(t)
		testserver.Must(t, got["subject"] == nil && got["isActive"] == false && got["name"] == "welcome" &&
			got["textPayload"] == "Olá {{name}}" && got["updatedAt"] != created["updatedAt"], "patched %v", got)
		r = templateReq(ts, t, "PATCH", "/"+id, map[string]any{"textPayload": nil, "sourceLocale": "pt-BR", "starterSlug": "welcome-1"})
		got = r.JSON(t)
		testserver.Must(t, got["textPayload"] == nil && got["sourceLocale"] == "pt-BR" && got["starterSlug"] == "welcome-1", "patched %v", got)
		testserver.Expect(t, templateReq(ts, t, "PATCH", "/"+id, map[string]any{}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, templateReq(ts, t, "PATCH", "/"+id, map[string]any{"html": "{{/each}}"}), 422, "TEMPLATE_SYNTAX_ERROR")
		testserver.Expect(t, templateReq(ts, t, "POST", "", map[string]any{"name": "other", "html": "x"}), 201, "")
		testserver.Expect(t, templateReq(ts, t, "PATCH", "/"+id, map[string]any{"name": "other"}), 409, "CONFLICT")
		r = templateReq(ts, t, "GET", "/"+id, nil)
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["name"] == "welcome" && r.JSON(t)["html"] == "<h1>Olá {{name}}</h1><p>{{plan}}</p>", "refused patches changed nothing: %s", r.Body)

		// Shared by both modes (D7); a sending_access key may not manage them (D6).
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: templatesPath + "/" + id, Key: ts.TestKey}), 200, "")
		sending := ts.NewKey(t, app.KeyRequest{OrgID: ts.OrgID, Name: "sender", Mode: carteiro.ModeLive, Permission: carteiro.PermissionSending})
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: templatesPath, Key: sending}), 403, "FORBIDDEN")

		testserver.Expect(t, templateReq(ts, t, "DELETE", "/"+id, nil), 204, "")
		testserver.Expect(t, templateReq(ts, t, "GET", "/"+id, nil), 404, "NOT_FOUND")
		testserver.Expect(t, templateReq(ts, t, "DELETE", "/"+id, nil), 404, "NOT_FOUND")
		testserver.Expect(t, templateReq(ts, t, "GET", "/not-a-uuid", nil), 404, "NOT_FOUND")
	})
}

// Not parallel, as TestReactEmailTemplates: it renders React Email (or
// formats with Prettier) in goja within the 2 s limit.
func TestTemplatePreviewTestRenderAndFormat(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := templateReq(ts, t, "POST", "/preview", map[string]any{
			"html": "<p>Hi {{name}}</p>{{#each items}}<li>{{@index}}:{{this}}</li>{{/each}}", "format": "html",
			"subject": "Order for {{name}}", "variables": map[string]any{"name": "<Ana & Bia>", "items": []string{"a", "b"}},
		})
		testserver.Expect(t, r, 200, "")
		p := r.JSON(t)
		testserver.Must(t, p["html"] == "<p>Hi &lt;Ana &amp; Bia&gt;</p><li>0:a</li><li>1:b</li>", "preview html %q", p["html"])
		testserver.Must(t, p["subject"] == "Order for <Ana & Bia>" || p["subject"] == "Order for &lt;Ana &amp; Bia&gt;", "subject %q", p["subject"])
		testserver.Must(t, strings.Contains(p["text"].(string), "Hi <Ana & Bia>"), "generated text %q", p["text"])
		r = templateReq(ts, t, "POST", "/preview", map[string]any{"html": "<p>x</p>"})
		testserver.Must(t, r.JSON(t)["subject"] == nil, "no subject given: %s", r.Body)
		testserver.Expect(t, templateReq(ts, t, "POST", "/preview", map[string]any{"html": "{{#each x}}"}), 422, "TEMPLATE_SYNTAX_ERROR")
		testserver.Expect(t, templateReq(ts, t, "POST", "/preview", map[string]any{}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, templateReq(ts, t, "POST", "/preview", map[string]any{"html": "x", "format": "pug"}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, templateReq(ts, t, "POST", "/preview", "not an object"), 400, "INVALID_JSON")

		// D40: test-render removes and counts what could run.
		r = templateReq(ts, t, "POST", "/test-render", map[string]any{
			"html": `<p onclick="steal()">Hi {{{name}}}</p><script>alert(1)</script><a href="javascript:alert(2)">x</a>` +
				`<iframe src="https://evil.example"></iframe><img src="cid:logo" onerror="x()"><a href="mailto:a@b.example">m</a>`,
			"variables": map[string]any{"name": "<script>alert(3)</script>"},
		})
		testserver.Expect(t, r, 200, "")
		tr := r.JSON(t)
		rep := tr["sanitizeReport"].(map[string]any)
		testserver.Must(t, rep["scripts"] == 2.0 && rep["iframes"] == 1.0 && rep["javascriptHrefs"] == 1.0 && rep["eventHandlers"] == 2.0, "report %v", rep)
		html := tr["html"].(string)
		for _, bad := range []string{"<script", "<iframe", "javascript:", "onclick", "onerror", "alert("} {
			testserver.Must(t, !strings.Contains(strings.ToLower(html), bad), "%q survived: %s", bad, html)
		}
		testserver.Must(t, strings.Contains(html, `src="cid:logo"`) && strings.Contains(html, `href="mailto:a@b.example"`), "email-safe HTML kept: %s", html)

		r = templateReq(ts, t, "POST", "/format", map[string]any{"html": "<table><tr><td>{{#if a}}<b>{{a}}</b>{{/if}}</td></tr></table>", "format": "html"})
		testserver.Expect(t, r, 200, "")
		formatted := r.JSON(t)["html"].(string)
		for _, must := range []string{"{{#if a}}", "{{a}}", "{{/if}}", "<table>", "</table>"} {
			testserver.Must(t, strings.Contains(formatted, must), "format lost %q: %s", must, formatted)
		}
		testserver.Expect(t, templateReq(ts, t, "POST", "/format", map[string]any{"format": "html"}), 422, "VALIDATION_ERROR")
		testserver.Expect(t, templateReq(ts, t, "POST", "/format", map[string]any{"html": "{{#if a}}", "format": "handlebars"}), 422, "TEMPLATE_SYNTAX_ERROR")

	})
}

// TestEmailFromTemplate sends with templateId (D20) and checks what the SMTP
// server received.
func TestEmailFromTemplate(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		r := templateReq(ts, t, "POST", "", map[string]any{
			"name": "receipt", "subject": "Pedido {{order}}",
			"html":      `<html><body><h1>Olá {{name}}</h1>{{#each items}}<p>{{qty}} × {{title}}</p>{{/each}}<p>{{footer}}</p></body></html>`,
			"variables": []map[string]any{{"name": "name"}, {"name": "footer", "defaultValue": "Obrigado!"}},
		})
		testserver.Expect(t, r, 201, "")
		id := r.JSON(t)["id"].(string)
		vars := map[string]any{"name": "Ana", "order": "42", "items": []map[string]any{{"qty": 2, "title": "Café"}, {"qty": 1, "title": "Pão & mel"}}}
		res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "ana@customer.example", "templateId": id, "variables": vars})
		msgs, err := smtp.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil, "no message: %v", err)
		msg, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
		testserver.Must(t, err == nil, "parse: %v", err)
		subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		testserver.Must(t, subject == "Pedido 42", "subject %q", subject)
		parts := walkMIME(t, msg.Header.Get("Content-Type"), msg.Body)
		testserver.Must(t, strings.Contains(parts["text/html"], "<h1>Olá Ana</h1><p>2 × Café</p><p>1 × Pão &amp; mel</p><p>Obrigado!</p>"), "html part %q", parts["text/html"])
		testserver.Must(t, strings.Contains(parts["text/plain"], "Olá Ana") && strings.Contains(parts["text/plain"], "Pão & mel"), "text part %q", parts["text/plain"])
		e := getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, e.Subject != nil && *e.Subject == "Pedido 42" && e.HTML != nil && strings.Contains(*e.HTML, "Olá Ana"), "stored email %+v", e)

		// The request's subject overrides the template's (D20).
		res = send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": "ana@customer.example", "templateId": id, "subject": "Outro", "variables": vars})
		e = getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, *e.Subject == "Outro", "subject override %q", *e.Subject)

		post := func(body map[string]any) *testserver.Response {
			return ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: body})
		}
		base := func(extra map[string]any) map[string]any {
			m := map[string]any{"from": "orders@shop.example", "to": "ana@customer.example"}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		fieldOf := func(r *testserver.Response) any {
			return r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)["field"]
		}
		// Unknown, another organization's and inactive templates are 422 on templateId (D20).
		r = post(base(map[string]any{"templateId": "0190e0a0-0000-7000-8000-000000000000"}))
		testserver.Expect(t, r, 422, "VALIDATION_ERROR")
		testserver.Must(t, fieldOf(r) == "templateId", "unknown template %s", r.Body)
		_, otherKey, _ := ts.NewOrg(t, "Other")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: templatesPath, Key: otherKey, Body: map[string]any{"name": "theirs", "html": "x", "subject": "s"}})
		testserver.Expect(t, r, 201, "")
		r = post(base(map[string]any{"templateId": r.JSON(t)["id"]}))
		testserver.Must(t, r.Status == 422 && fieldOf(r) == "templateId", "another organization's template %s", r.Body)
		r = post(base(map[string]any{"templateId": id, "html": "<p>own</p>"}))
		testserver.Must(t, r.Status == 422 && fieldOf(r) == "html", "template and html %s", r.Body)
		testserver.Expect(t, templateReq(ts, t, "PATCH", "/"+id, map[string]any{"isActive": false}), 200, "")
		r = post(base(map[string]any{"templateId": id}))
		testserver.Must(t, r.Status == 422 && fieldOf(r) == "templateId", "inactive template %s", r.Body)
		// A template without a subject needs the request's (D20).
		r = templateReq(ts, t, "POST", "", map[string]any{"name": "nosubject", "html": "<p>{{x}}</p>"})
		plain := r.JSON(t)["id"]
		r = post(base(map[string]any{"templateId": plain}))
		testserver.Must(t, r.Status == 422 && fieldOf(r) == "subject", "no subject %s", r.Body)

		// Batch items render on their own.
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: []any{
			base(map[string]any{"templateId": plain, "subject": "a", "variables": map[string]any{"x": "um"}}),
			base(map[string]any{"templateId": id}),
		}})
		testserver.Expect(t, r, 202, "")
		testserver.Must(t, strings.Count(string(r.Body), `"ok":true`) == 1 && strings.Contains(string(r.Body), "templateId"), "batch %s", r.Body)
	})
}

// reactWelcome is a React Email template in TSX: layout components, typed
// props with a default, a conditional and a comment.
const reactWelcome = `import { Html, Body, Heading, Text, Button } from "@react-email/components";
type Props = { name?: string; plan: string; vip: boolean };
// Sent after sign-up.
export default function Welcome({ name = "there", plan, vip }: Props) {
  return (<Html lang="pt"><Body><Heading>Olá {name}</Heading><Text>Plano {plan}</Text>
    {vip ? <Text>Frete grátis</Text> : null}<Button href="https://shop.example/a?b=1&c=2">Entrar</Button></Body></Html>);
}`

// TestReactEmailTemplates drives every template route with a React Email
// source (D37 to D40) and sends one with templateId: the SMTP server gets
// the HTML rendered by @react-email/render's own code, in the engine.
//
// Not parallel: React Email renders in goja, 10 to 20 times slower under
// -race, against the 2 s render limit (D61), which other tests' load on the
// CPU ran out (seen: 422 reason "time" beside three parallel tests).
func TestReactEmailTemplates(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		r := templateReq(ts, t, "POST", "", map[string]any{"name": "welcome", "format": "react_email", "subject": "Oi {{name}}",
			"html": reactWelcome, "variables": []map[string]any{{"name": "plan", "defaultValue": "básico"}}})
		testserver.Expect(t, r, 201, "")
		created := r.JSON(t)
		id := created["id"].(string)
		testserver.Must(t, created["format"] == "react" && created["html"] == reactWelcome, "created %v", created)
		testserver.Must(t, templateReq(ts, t, "GET", "/"+id, nil).JSON(t)["format"] == "react", "read format")

		r = templateReq(ts, t, "POST", "/preview", map[string]any{"html": reactWelcome, "format": "react",
			"subject": "Oi {{name}}", "variables": map[string]any{"name": "Ana <A>", "plan": "pro", "vip": true}})
		testserver.Expect(t, r, 200, "")
		p := r.JSON(t)
		html := p["html"].(string)
		testserver.Must(t, strings.HasPrefix(html, `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"`) &&
			strings.Contains(html, "Olá <!-- -->Ana &lt;A&gt;") && strings.Contains(html, "Frete grátis") &&
			strings.Contains(html, `href="https://shop.example/a?b=1&amp;c=2"`), "preview html %s", html)
		testserver.Must(t, p["subject"] == "Oi Ana <A>" && strings.Contains(p["text"].(string), "OLÁ ANA <A>") &&
			strings.Contains(p["text"].(string), "Entrar"), "preview %v", p)

		// Tailwind classes become inline styles, as @react-email/tailwind does under Node.
		r = templateReq(ts, t, "POST", "/preview", map[string]any{"format": "react", "variables": map[string]any{"n": 3},
			"html": `import { Html, Body, Text, Tailwind } from "@react-email/components";
export default ({ n }) => <Html><Tailwind><Body><Text className="text-lg font-bold text-red-500">{n} items</Text></Body></Tailwind></Html>;`})
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, strings.Contains(r.JSON(t)["html"].(string), `style="font-size:1.125rem;line-height:1.5555555555555556;font-weight:700;color:rgb(251,44,54)`),
			"tailwind preview %s", r.Body)

		// The text is render()'s plain-text version (html-to-text: headings upper-cased).
		// Syntax errors carry line and column (D39); hostile code hits a limit (D37).
		r = templateReq(ts, t, "POST", "/preview", map[string]any{"format": "react", "html": "export default function A() {\n  return <Html><Text>hi</Html>;\n}"})
		testserver.Expect(t, r, 422, "TEMPLATE_SYNTAX_ERROR")
		d := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		testserver.Must(t, d["line"] == 2.0 && d["column"] == 26.0 && strings.Contains(d["reason"].(string), "closing"), "syntax details %v", d)
		r = templateReq(ts, t, "POST", "/preview", map[string]any{"format": "react", "html": "export default function A() { while (true) {} }"})
		testserver.Expect(t, r, 422, "TEMPLATE_RENDER_ERROR")
		testserver.Expect(t, templateReq(ts, t, "POST", "", map[string]any{"name": "bad", "format": "react", "html": "import x from \"fs\";\nexport default () => x;"}),
			422, "TEMPLATE_SYNTAX_ERROR")

		// test-render sanitizes what React would happily render (D40).
		evil := `export default () => (<div><a href="javascript:alert(1)">x</a><img src="cid:logo" onError="x()" /></div>);`
		r = templateReq(ts, t, "POST", "/test-render", map[string]any{"format": "react", "html": evil})
		testserver.Expect(t, r, 200, "")
		tr := r.JSON(t)
		testserver.Must(t, !strings.Contains(strings.ToLower(tr["html"].(string)), "javascript:") && strings.Contains(tr["html"].(string), "cid:logo"),
			"test-render %v", tr)

		// format pretty-prints with Prettier, keeping the comment and the types.
		r = templateReq(ts, t, "POST", "/format", map[string]any{"format": "react", "html": reactWelcome})
		testserver.Expect(t, r, 200, "")
		formatted := r.JSON(t)["html"].(string)
		testserver.Must(t, formatted != reactWelcome && strings.Contains(formatted, "// Sent after sign-up.") &&
			strings.Contains(formatted, "type Props = { name?: string; plan: string; vip: boolean };") &&
			strings.Contains(formatted, "\n      <Body>\n"), "formatted %s", formatted)

		res := send(t, ts, ts.LiveKey, map[string]any{"from": "news@shop.example", "to": "ana@customer.example", "templateId": id,
			"variables": map[string]any{"name": "Ana", "vip": false}})
		msgs, err := smtp.WaitForMessages(1, 10*time.Second)
		testserver.Must(t, err == nil, "no message: %v", err)
		msg, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
		testserver.Must(t, err == nil, "parse: %v", err)
		subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		parts := walkMIME(t, msg.Header.Get("Content-Type"), msg.Body)
		testserver.Must(t, subject == "Oi Ana" && strings.Contains(parts["text/html"], "Olá <!-- -->Ana") &&
			strings.Contains(parts["text/html"], "Plano <!-- -->básico") && !strings.Contains(parts["text/html"], "Frete"),
			"subject %q html %q", subject, parts["text/html"])
		testserver.Must(t, strings.Contains(parts["text/plain"], "OLÁ ANA") && strings.Contains(parts["text/plain"], "Plano básico"),
			"text %q", parts["text/plain"])
		e := getEmail(t, ts, ts.LiveKey, res.ID)
		testserver.Must(t, e.HTML != nil && strings.Contains(*e.HTML, "Olá <!-- -->Ana"), "stored email %+v", e)

		// PATCH checks the new React source and changes only it; DELETE removes the template.
		testserver.Expect(t, templateReq(ts, t, "PATCH", "/"+id, map[string]any{"html": "export default () => <p>{"}), 422, "TEMPLATE_SYNTAX_ERROR")
		r = templateReq(ts, t, "PATCH", "/"+id, map[string]any{"html": `export default ({ name }) => <p>Tchau {name}</p>;`})
		testserver.Expect(t, r, 200, "")
		patched := r.JSON(t)
		testserver.Must(t, patched["format"] == "react" && patched["subject"] == "Oi {{name}}" && patched["name"] == "welcome", "patched %v", patched)
		send(t, ts, ts.LiveKey, map[string]any{"from": "news@shop.example", "to": "bia@customer.example", "templateId": id,
			"variables": map[string]any{"name": "Bia"}})
		msgs, err = smtp.WaitForMessages(2, 10*time.Second)
		testserver.Must(t, err == nil && strings.Contains(string(msgs[1].Data), "Tchau <!-- -->Bia"), "patched template not used: %v", err)
		testserver.Expect(t, templateReq(ts, t, "DELETE", "/"+id, nil), 204, "")
		testserver.Expect(t, templateReq(ts, t, "GET", "/"+id, nil), 404, "NOT_FOUND")
	})
}
