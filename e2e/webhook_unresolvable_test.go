package e2e

import (
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// Issue 24 (item 8), D51: a webhook URL whose host does not resolve says
// so, with its own reason and message in each language, instead of "not a
// valid URL"; a malformed URL keeps invalid_url.
func TestWebhookHostThatDoesNotResolve(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil) // D51 enforced
		ts.DNS.SetA("public.example", "93.184.215.14")
		post := func(method, path, u, lang string) map[string]any {
			t.Helper()
			r := ts.Do(t, testserver.Request{Method: method, Path: "/v1/product/webhooks" + path, Key: ts.LiveKey,
				Body: map[string]any{"url": u, "events": []string{"email.sent"}}, Header: map[string]string{"Accept-Language": lang}})
			testserver.Expect(t, r, 422, "VALIDATION_ERROR")
			return r.JSON(t)["error"].(map[string]any)
		}
		for lang, words := range map[string]string{"pt-BR": "não resolve", "en": "does not resolve", "es": "no se resuelve"} {
			e := post("POST", "", "https://hooks.typo.invalid/carteiro", lang)
			d := e["details"].(map[string]any)
			testserver.Must(t, d["field"] == "url" && d["reason"] == "host_not_resolvable", "%s: details %v", lang, d)
			testserver.Must(t, strings.Contains(e["message"].(string), words), "%s: message %q", lang, e["message"])
		}
		e := post("POST", "", "https:hooks.example", "en")
		testserver.Must(t, e["details"].(map[string]any)["reason"] == "invalid_url", "malformed: %v", e)

		id := createHook(t, ts, "https://public.example/hook", []string{"email.sent"}, "")["id"].(string)
		e = post("PUT", "/"+id, "https://gone.invalid/hook", "en")
		testserver.Must(t, e["details"].(map[string]any)["reason"] == "host_not_resolvable", "PUT: %v", e)
	})
}
