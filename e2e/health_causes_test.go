package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// D69: "domain health names the cause". Receivers refuse some recipients
// for the sending side's configuration (reverse DNS, SPF); POST
// /domains/{id}/health lists each cause with its count and the receiver's
// reply, in the caller's language; a refusal that blames the recipient (a
// 5.1.1) is no cause of the sending side.
func TestDomainHealthNamesSenderFailureCauses(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, d := relayServer(t, b, nil)
		ptr := testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.7.25", Message: "Reverse DNS lookup failed for 127.0.0.1"}
		smtp.Script("ptr1@customer.example", ptr)
		smtp.Script("ptr2@customer.example", ptr)
		smtp.Script("spf@customer.example", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.7.23", Message: "SPF validation failed"})
		smtp.Script("gone@customer.example", testutil.Reply{Stage: testutil.StageRcpt, Code: 550, Enhanced: "5.1.1", Message: "no such user"})
		for _, to := range []string{"ptr1", "ptr2", "spf", "gone"} {
			res := send(t, ts, ts.LiveKey, map[string]any{"from": "orders@shop.example", "to": to + "@customer.example", "subject": "s", "text": "t"})
			waitStatus(t, ts, ts.LiveKey, res.ID, "failed", "bounced")
		}

		recs := func(lang string) map[string]map[string]any {
			r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/health", Key: ts.LiveKey,
				Header: map[string]string{"Accept-Language": lang}})
			testserver.Expect(t, r, 200, "")
			out := map[string]map[string]any{}
			for _, rec := range r.JSON(t)["recommendations"].([]any) {
				out[rec.(map[string]any)["code"].(string)] = rec.(map[string]any)
			}
			return out
		}
		en := recs("en")
		ptrRec, spfRec := en["refused_ptr"], en["refused_spf"]
		testserver.Must(t, ptrRec != nil && spfRec != nil, "recommendations %v", en)
		testserver.Must(t, ptrRec["severity"] == "critical" && strings.HasPrefix(ptrRec["message"].(string), "2 recent messages") &&
			strings.Contains(ptrRec["message"].(string), "5.7.25 Reverse DNS lookup failed for 127.0.0.1") &&
			strings.Contains(ptrRec["message"].(string), "PTR"), "ptr %v", ptrRec)
		testserver.Must(t, strings.HasPrefix(spfRec["message"].(string), "1 recent messages") && strings.Contains(spfRec["message"].(string), "SPF validation failed"), "spf %v", spfRec)
		for code := range en {
			testserver.Must(t, code == "refused_ptr" || code == "refused_spf" || !strings.HasPrefix(code, "refused_"), "a recipient's refusal named as a sender cause: %s", code)
		}
		pt := recs("pt-BR")["refused_ptr"]
		testserver.Must(t, pt != nil && strings.Contains(fmt.Sprint(pt["message"]), "DNS reverso"), "pt-BR %v", pt)
	})
}
