package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// eachTemplate lists an object's members with {{#each}}: handlebars.js
// enumerates them as JavaScript does, integer-like keys ascending and then
// the others in the order of the JSON the caller sent.
const eachTemplate = `{{#each plans}}{{@key}}={{this}};{{/each}}|{{#each this}}{{@key}},{{/each}}`

// plansJSON is written by hand: a Go map would be encoded sorted.
const plansJSON = `{"zeta":"z","plans":{"pro":3,"basic":1,"10":"ten","enterprise":9,"2":"two"},"alpha":"a"}`

// Sorted keys (a Go map's order) would give "10=ten;2=two;basic=1;..." and
// "alpha,plans,zeta,"; the caller's order is what handlebars.js gives.
const plansRendered = `2=two;10=ten;pro=3;basic=1;enterprise=9;|zeta,plans,alpha,`

// Issue 24 (item 6): {{#each}} over an object follows the member order of
// the JSON the caller sent, from the request body to the renderer, in
// preview, a send with templateId, a batch and a stored broadcast (with
// the contact's metadata), and in a React Email template's props.
//
// Not parallel, as TestReactEmailTemplates: it renders React Email (or
// formats with Prettier) in goja within the 2 s limit.
func TestEachFollowsTheMemberOrderOfTheRequestJSON(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)

		r := templateReq(ts, t, "POST", "/preview", []byte(`{"html":"`+eachTemplate+`","variables":`+plansJSON+`}`))
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, r.JSON(t)["html"] == plansRendered, "preview %q, want %q", r.JSON(t)["html"], plansRendered)

		// Variables that are not an object are still 422 invalid_type.
		for _, bad := range []string{`5`, `[1]`, `"x"`} {
			r = templateReq(ts, t, "POST", "/preview", []byte(`{"html":"x","variables":`+bad+`}`))
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			d := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
			testserver.Must(t, d["field"] == "variables" && d["reason"] == "invalid_type", "variables %s: %s", bad, r.Body)
		}
		testserver.Expect(t, templateReq(ts, t, "POST", "/preview", []byte(`{"html":"x","variables":null}`)), 200, "")

		// React Email: the props reach the component in the same order.
		react := `export default function P({ plans }: { plans: Record<string, number> }) { return <p>{Object.keys(plans).join(",")}</p>; }`
		r = templateReq(ts, t, "POST", "/preview", []byte(fmt.Sprintf(`{"format":"react","html":%q,"variables":%s}`, react, plansJSON)))
		testserver.Expect(t, r, 200, "")
		testserver.Must(t, strings.Contains(r.JSON(t)["html"].(string), "<p>2,10,pro,basic,enterprise</p>"), "react preview %q", r.JSON(t)["html"])

		// A stored template with a declared default: {...defaults, ...sent}.
		r = templateReq(ts, t, "POST", "", map[string]any{"name": "plans", "subject": "Planos", "html": eachTemplate,
			"variables": []map[string]any{{"name": "footer", "defaultValue": "f"}}})
		testserver.Expect(t, r, 201, "")
		tpl := r.JSON(t)["id"].(string)
		item := fmt.Sprintf(`{"from":"orders@shop.example","to":"ana@customer.example","templateId":%q,"variables":%s}`, tpl, plansJSON)
		withDefault := `2=two;10=ten;pro=3;basic=1;enterprise=9;|footer,zeta,plans,alpha,`
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails", Key: ts.LiveKey, Body: []byte(item)}), 202, "")
		r = ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: []byte("[" + item + "]")})
		testserver.Expect(t, r, 202, "")
		msgs, err := smtp.WaitForMessages(2, 15*time.Second)
		testserver.Must(t, err == nil && len(msgs) == 2, "%d messages: %v", len(msgs), err)
		for _, m := range msgs {
			_, parts := parseMessage(t, m)
			testserver.Must(t, strings.Contains(parts["text/html"], withDefault), "sent html %q, want %q", parts["text/html"], withDefault)
		}

		// A broadcast stores its variables and renders them later, with the
		// contact's metadata, also stored as sent.
		aud := audienceReq(t, ts, "POST", "", map[string]any{"name": "order"})
		testserver.Expect(t, aud, 201, "")
		audID := aud.JSON(t)["id"].(string)
		r = audienceReq(t, ts, "POST", "/"+audID+"/contacts/bulk",
			[]byte(`{"contacts":[{"email":"bia@customer.example","metadata":{"y":1,"b":2,"x":3}}]}`))
		testserver.Expect(t, r, 200, "")
		html := `{{#each plans}}{{@key}};{{/each}}|{{#each contact.metadata}}{{@key}};{{/each}}|{{#each contact}}{{@key}},{{/each}}`
		r = broadcastReq(t, ts, ts.LiveKey, "POST", "", []byte(fmt.Sprintf(
			`{"audienceId":%q,"fromEmail":"news@shop.example","subject":"s","html":%q,"variables":%s}`, audID, html, plansJSON)))
		testserver.Expect(t, r, 201, "")
		id := r.JSON(t)["id"].(string)
		testserver.Expect(t, broadcastReq(t, ts, ts.LiveKey, "POST", "/"+id+"/send", nil), 202, "")
		waitBroadcast(t, ts, ts.LiveKey, id, "sent")
		msgs, err = smtp.WaitForMessages(3, 15*time.Second)
		testserver.Must(t, err == nil && len(msgs) == 3, "%d messages: %v", len(msgs), err)
		_, parts := parseMessage(t, msgs[2])
		want := `2;10;pro;basic;enterprise;|y;b;x;|email,firstName,lastName,metadata,`
		testserver.Must(t, strings.Contains(parts["text/html"], want), "broadcast html %q, want %q", parts["text/html"], want)
	})
}
