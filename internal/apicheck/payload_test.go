package apicheck

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/carteiro/carteiro/docs"
)

// The webhook payload (D47) is no answer of the API, so no end-to-end check
// sees it; these cases hold its published schema to the shape the service
// sends, so that receivers can generate code from it.

func webhookEventSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	jsonDoc, err := docs.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	compiler, err := newCompiler(jsonDoc)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := compile(compiler, "#/components/schemas/WebhookEvent")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// webhookEvent is a payload as the service marshals it: the email's fields
// and the event's metadata side by side in data (D47, D26).
func webhookEvent(typ string, metadata obj) obj {
	data := obj{
		"emailId": emailID, "from": "Acme <news@example.com>", "to": []string{"a@example.org", "B <b@example.org>"},
		"subject": "Hello", "tags": []obj{{"name": "category", "value": "welcome"}},
	}
	for k, v := range metadata {
		data[k] = v
	}
	return obj{"id": eventID, "type": typ, "createdAt": "2025-03-01T10:00:00.123456789Z", "data": data}
}

// validateEvent encodes v as the service would and validates the JSON.
func validateEvent(t *testing.T, schema *jsonschema.Schema, v obj) error {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	value, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return schema.Validate(value)
}

func TestWebhookEventSchemaAcceptsEveryEventType(t *testing.T) {
	t.Parallel()
	schema := webhookEventSchema(t)
	cases := map[string]obj{
		"email.sent":      {"recipient": "a@example.org", "mx": "mx.example.org", "response": "250 2.0.0 OK"},
		"email.delivered": {"recipient": "a@example.org"},
		"email.bounced": {"recipient": "a@example.org", "bounceType": "hard", "code": 550, "enhancedCode": "5.1.1",
			"diagnostic": "no such user"},
		"email.delivery_delayed": {"recipient": "a@example.org", "code": 451, "enhancedCode": "4.7.1", "diagnostic": "greylisted"},
		"email.complained":       {"recipient": "a@example.org", "feedbackType": "abuse"},
		"email.opened":           {"userAgent": "Mozilla/5.0"},
		"email.clicked":          {"url": "https://example.com/", "userAgent": "Mozilla/5.0"},
		"email.failed":           {"error": "550 5.7.1 rejected"},
		"email.suppressed":       {"recipient": "a@example.org"},
	}
	for typ, metadata := range cases {
		if err := validateEvent(t, schema, webhookEvent(typ, metadata)); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
	if err := validateEvent(t, schema, receivedEvent(nil)); err != nil {
		t.Errorf("email.received: %v", err)
	}
	if err := validateEvent(t, schema, receivedEvent(obj{"truncated": true, "inReplyToEmailId": emailID})); err != nil {
		t.Errorf("email.received, cut and a reply: %v", err)
	}
	if err := validateEvent(t, schema, receivedEvent(obj{"test": true, "attachments": []obj{}})); err != nil {
		t.Errorf("email.received test event: %v", err)
	}
	test := webhookEvent("email.sent", obj{"test": true})
	test["data"].(obj)["tags"] = []obj{}
	if err := validateEvent(t, schema, test); err != nil {
		t.Errorf("test event: %v", err)
	}
}

// receivedEvent is an email.received payload as the service marshals it
// (D75), with edits.
func receivedEvent(edits obj) obj {
	data := obj{
		"inboundEmailId": emailID, "from": "João <joao@sender.example>", "to": []string{"support@example.com"}, "cc": []string{},
		"subject": "Re: Pedido", "text": "Olá", "html": "<p>Olá</p>",
		"attachments": []obj{{"id": "1", "filename": "nota.pdf", "contentType": "application/pdf", "size": 7}},
		"spf":         "pass", "dkim": "none", "dmarc": "fail", "inReplyToEmailId": nil,
	}
	for k, v := range edits {
		data[k] = v
	}
	return obj{"id": eventID, "type": "email.received", "createdAt": "2026-11-27T14:40:02.123456Z", "data": data}
}

func TestWebhookEventSchemaRefusesOtherShapes(t *testing.T) {
	t.Parallel()
	schema := webhookEventSchema(t)
	cases := map[string]obj{
		"timeline type":             webhookEvent("delivered", nil),
		"id not a uuid":             edited(webhookEvent("email.sent", nil), func(e obj) { e["id"] = "evt_1" }),
		"no data":                   edited(webhookEvent("email.sent", nil), func(e obj) { delete(e, "data") }),
		"no emailId":                edited(webhookEvent("email.sent", nil), func(e obj) { delete(e["data"].(obj), "emailId") }),
		"tags null":                 edited(webhookEvent("email.sent", nil), func(e obj) { e["data"].(obj)["tags"] = nil }),
		"test false":                webhookEvent("email.sent", obj{"test": false}),
		"bounce type":               webhookEvent("email.bounced", obj{"bounceType": "permanent"}),
		"code as text":              webhookEvent("email.bounced", obj{"code": "550"}),
		"misspelled key":            webhookEvent("email.opened", obj{"user_agent": "Mozilla/5.0"}),
		"envelope nested":           edited(webhookEvent("email.sent", nil), func(e obj) { e["event"] = "email.sent" }),
		"received, emailId":         receivedEvent(obj{"emailId": emailID}),
		"received, no spf":          edited(receivedEvent(nil), func(e obj) { delete(e["data"].(obj), "spf") }),
		"received, truncated false": receivedEvent(obj{"truncated": false}),
	}
	for name, v := range cases {
		if validateEvent(t, schema, v) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
