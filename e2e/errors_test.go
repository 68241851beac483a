package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/nothing-here", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusNotFound, "ROUTE_NOT_FOUND")
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/nothing-here"})
		testserver.Expect(t, r, http.StatusNotFound, "ROUTE_NOT_FOUND")

		r = ts.Do(t, testserver.Request{Method: "PUT", Path: "/v1/product/domains", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
		testserver.Must(t, r.Header.Get("Allow") == "GET, POST", "Allow = %q", r.Header.Get("Allow"))
		r = ts.Do(t, testserver.Request{Method: "PATCH", Path: "/v1/product/domains/abc", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
		testserver.Must(t, r.Header.Get("Allow") == "GET, DELETE", "Allow = %q", r.Header.Get("Allow"))

		// An id that is no uuid is simply unknown.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/not-a-uuid", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusNotFound, "NOT_FOUND")
	})
}

func TestMessagesAreLocalized(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		messages := map[string]string{}
		for _, c := range []struct{ accept, lang string }{
			{"", "pt-BR"}, {"pt-BR", "pt-BR"}, {"pt-PT", "pt-BR"}, {"en-US,en;q=0.9", "en"},
			{"es-MX", "es"}, {"de", "pt-BR"}, {"fr;q=0.9, es;q=0.5", "es"},
		} {
			for _, req := range []testserver.Request{
				{Method: "GET", Path: "/v1/product/domains/0190aaaa-0000-7000-8000-000000000000", Key: ts.LiveKey},
				{Method: "POST", Path: "/v1/product/domains", Key: ts.LiveKey, Body: `{"name":"x"}`},
				{Method: "GET", Path: "/v1/product/domains"},
			} {
				req.Header = map[string]string{"Accept-Language": c.accept}
				r := ts.Do(t, req)
				testserver.Must(t, r.Header.Get("Content-Language") == c.lang, "Accept-Language %q: Content-Language %q, want %q",
					c.accept, r.Header.Get("Content-Language"), c.lang)
				msg := r.JSON(t)["error"].(map[string]any)["message"].(string)
				testserver.Must(t, msg != "", "empty message")
				key := c.lang + " " + r.ErrorCode()
				if prev, ok := messages[key]; ok {
					testserver.Must(t, prev == msg, "%s: %q then %q", key, prev, msg)
				}
				messages[key] = msg
			}
		}
		// Each code reads differently in each language, and the validation
		// message names the field.
		for _, code := range []string{"NOT_FOUND", "VALIDATION_ERROR", "MISSING_API_KEY"} {
			pt, en, es := messages["pt-BR "+code], messages["en "+code], messages["es "+code]
			testserver.Must(t, pt != en && en != es && pt != es, "%s not localized: %q %q %q", code, pt, en, es)
		}
		for _, lang := range []string{"pt-BR", "en", "es"} {
			testserver.Must(t, strings.Contains(messages[lang+" VALIDATION_ERROR"], "name"), "%s validation message does not name the field: %q", lang, messages[lang+" VALIDATION_ERROR"])
		}
	})
}
