package e2e

import (
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// An email's page in the dashboard shows its custom headers, its
// attachments (name, type, size; never the content) and the webhook
// deliveries of its own events, not those of the organization's other
// emails (issue 26).
func TestDashboardEmailDetails(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, be testserver.Backend) {
		rcv := testutil.NewTLSReceiver(t, nil)
		ts := testserver.StartServer(t, be, map[string]string{
			"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
		})
		r := ts.Do(t, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.TestKey,
			Body: map[string]any{"url": rcv.URL() + "/hooks", "events": []string{"email.sent", "email.delivered"}}})
		testserver.Expect(t, r, 201, "")
		pdf := []byte("%PDF-1.4 fourteen")
		mine := send(t, ts, ts.TestKey, map[string]any{"from": "hello@unverified.example", "to": "anyone@sandbox.example",
			"subject": "With details", "text": "t", "headers": map[string]string{"X-Campaign": "spring"},
			"attachments": []map[string]any{{"filename": "invoice.pdf", "contentType": "application/pdf", "disposition": "attachment",
				"content": base64.StdEncoding.EncodeToString(pdf)}}})
		other := send(t, ts, ts.TestKey, map[string]any{"from": "hello@unverified.example", "to": "anyone@sandbox.example",
			"subject": "Another", "text": "t"})
		waitStatus(t, ts, ts.TestKey, mine.ID, "delivered")
		waitStatus(t, ts, ts.TestKey, other.ID, "delivered")
		if _, err := rcv.WaitForRequests(4, 20*time.Second); err != nil {
			t.Fatalf("the four deliveries did not arrive: %v", err)
		}

		owner := ts.NewUser(t, ts.OrgID, "owner@example.com", carteiro.RoleOwner)
		owner.Mode = "test"
		var details struct {
			Headers     []struct{ Name, Value string } `json:"headers"`
			Attachments []struct {
				Filename, ContentType, Disposition string
				Size                               int
			} `json:"attachments"`
			WebhookDeliveries []struct {
				EventType      string `json:"eventType"`
				Status         string `json:"status"`
				ResponseStatus *int   `json:"responseStatus"`
			} `json:"webhookDeliveries"`
		}
		var body string
		// A delivery's outcome is written just after the receiver answers.
		waitFor(t, func() bool {
			r := owner.Do(t, "GET", "/v1/platform/emails/"+mine.ID+"/details", nil, nil)
			testserver.Expect(t, r, 200, "")
			body = string(r.Body)
			r.Decode(t, &details)
			done := len(details.WebhookDeliveries) > 0
			for _, d := range details.WebhookDeliveries {
				done = done && d.Status == "success"
			}
			return done
		})
		testserver.Must(t, len(details.Headers) == 1 && details.Headers[0].Name == "X-Campaign" && details.Headers[0].Value == "spring",
			"headers: %s", body)
		testserver.Must(t, len(details.Attachments) == 1 && details.Attachments[0].Filename == "invoice.pdf" &&
			details.Attachments[0].ContentType == "application/pdf" && details.Attachments[0].Size == len(pdf), "attachments: %s", body)
		var types []string
		for _, d := range details.WebhookDeliveries {
			testserver.Must(t, d.ResponseStatus != nil && *d.ResponseStatus == 200, "delivery: %s", body)
			types = append(types, d.EventType)
		}
		// Its own two events only: the other email's two deliveries are not listed.
		testserver.Must(t, slices.Equal(types, []string{"email.sent", "email.delivered"}), "deliveries %v: %s", types, body)

		// The email is a test-mode email: the live mode does not see it.
		owner.Mode = "live"
		testserver.Expect(t, owner.Do(t, "GET", "/v1/platform/emails/"+mine.ID+"/details", nil, nil), 404, "NOT_FOUND")
	})
}
