package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

func TestDomainHealth(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, d := relayServer(t, b, map[string]string{"CARTEIRO_SENDING_IPS": "127.0.0.2,127.0.0.3",
			"CARTEIRO_DNSBL_LISTS": "ip:bl.test,domain:dbl.test"})
		health := func(lang string) map[string]any {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/health", Key: ts.LiveKey,
				Header: map[string]string{"Accept-Language": lang}})
			testserver.Expect(t, r, 200, "")
			return r.JSON(t)
		}
		codes := func(h map[string]any) string {
			var out []string
			for _, r := range h["recommendations"].([]any) {
				out = append(out, r.(map[string]any)["code"].(string))
			}
			return strings.Join(out, ",")
		}
		h := health("en")
		testserver.Must(t, h["score"] == float64(100) || strings.Contains(codes(h), "low_volume"), "fresh domain %v", h)
		testserver.Must(t, !strings.Contains(fmt.Sprint(h["blacklists"]), "listed:true"), "listed before listing: %v", h["blacklists"])

		// Listed: the sending IP 127.0.0.2 on the IP list (RFC 5782 style name).
		ts.DNS.SetA("2.0.0.127.bl.test", "127.0.0.2")
		ts.DNS.SetTXT("2.0.0.127.bl.test", "listed for spam")
		// A history with 5% bounces over 100 emails.
		for i := 0; i < 5; i++ {
			smtp.Script(fmt.Sprintf("gone%d@customer.example", i), testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "unknown"})
		}
		// 115 emails, 5 refused at RCPT: over the 100 sends that make rates
		// meaningful, and a bounce rate over 2%.
		batch := make([]any, 100)
		for i := range batch {
			to := fmt.Sprintf("ok%d@customer.example", i)
			if i < 5 {
				to = fmt.Sprintf("gone%d@customer.example", i)
			}
			batch[i] = map[string]any{"from": "orders@shop.example", "to": to, "subject": "h", "text": "t"}
		}
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batch}), 202, "")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/emails/batch", Key: ts.LiveKey, Body: batch[5:20]}), 202, "")
		waitFor(t, func() bool {
			for _, status := range []string{"queued", "processing"} {
				r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/emails?status=" + status, Key: ts.LiveKey})
				if len(r.JSON(t)["emails"].([]any)) > 0 {
					return false
				}
			}
			return true
		})
		ts.DNS.Remove("_dmarc.shop.example", 16) // TXT

		h = health("pt-BR")
		c := codes(h)
		testserver.Must(t, strings.Contains(c, "blocklisted") && strings.Contains(c, "high_bounce_rate") && strings.Contains(c, "publish_dmarc"),
			"recommendations %s", c)
		testserver.Must(t, h["score"].(float64) < 70, "score %v", h["score"])
		metrics := h["metrics"].(map[string]any)
		testserver.Must(t, metrics["windowDays"] == float64(30) && metrics["sent"].(float64) == 110, "metrics %v", metrics)
		listed := 0
		for _, l := range h["blacklists"].([]any) {
			if l.(map[string]any)["listed"] == true {
				listed++
				testserver.Must(t, l.(map[string]any)["target"] == "127.0.0.2", "listed target %v", l)
			}
		}
		testserver.Must(t, listed == 1, "listings %v", h["blacklists"])
		msg := h["recommendations"].([]any)[0].(map[string]any)["message"].(string)
		en := health("en")["recommendations"].([]any)[0].(map[string]any)["message"].(string)
		testserver.Must(t, msg != en && msg != "", "messages not localized: %q / %q", msg, en)
	})
}
