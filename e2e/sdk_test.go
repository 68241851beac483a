package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/sdk/go/carteiro"
	"github.com/carteiro/carteiro/sdk/go/carteiro/webhook"
)

// sdkServer is a real Carteiro with a verified domain (shop.example), an
// SMTP relay, an inbound listener (D75) and an HTTPS webhook receiver,
// and an SDK client whose requests are recorded and checked against
// docs/openapi.yaml.
func sdkServer(t *testing.T, b testserver.Backend) (*testserver.TestServer, *carteiro.Client, *routeRecorder, *testutil.TLSReceiver, *testutil.SMTPServer) {
	t.Helper()
	rcv := testutil.NewTLSReceiver(t, nil)
	ts, smtp, _ := relayServer(t, b, map[string]string{
		"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
		"CARTEIRO_SENDER_TOKEN_IN_RESPONSE": "true",
		"CARTEIRO_INBOUND_ADDR":             "127.0.0.1:0", "CARTEIRO_INBOUND_HOST": inboundMX,
	})
	rec := newRouteRecorder(t)
	client := carteiro.NewClient(ts.LiveKey, carteiro.WithBaseURL(ts.URL), carteiro.WithLanguage("en"),
		carteiro.WithHTTPClient(&http.Client{Transport: rec, Timeout: 30 * time.Second}))
	return ts, client, rec, rcv, smtp
}

// ok takes an SDK call's results and returns its value, failing the test
// on an error: created := ok(c.Domains.Create(ctx, name))(t).
func ok[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatalf("SDK call: %v", err)
		}
		return v
	}
}

// collect runs an iterator to the end.
func collect[T any](t *testing.T, seq func(yield func(*T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatalf("SDK list: %v", err)
		}
		out = append(out, *v)
	}
	return out
}

// TestSDKCallsEveryRoute drives the real service through every Go SDK
// method, on both stores, and checks what each answers; the recorder then
// shows that every product route of the description was called (issue 29).
func TestSDKCallsEveryRoute(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, c, rec, rcv, smtp := sdkServer(t, b)
		ctx := context.Background()

		ok(c.OpenAPIDocument(ctx))(t)
		sdkDomains(t, ctx, ts, c)
		sdkEmails(t, ctx, ts, c, smtp)
		sdkSenders(t, ctx, ts, c)
		sdkWebhooks(t, ctx, c, rcv)
		sdkAudiencesAndBroadcasts(t, ctx, c)
		sdkTemplates(t, ctx, c)
		sdkSuppressionsAndPrivacy(t, ctx, c)
		sdkInbound(t, ctx, ts, c)
		st := ok(c.Stats.Get(ctx, &carteiro.StatsParams{StartDate: time.Now().Add(-time.Hour), EndDate: time.Now().Add(time.Hour), Granularity: "hour"}))(t)
		testserver.Must(t, st.Granularity == "hour" && st.Totals.Sent >= 1, "stats %+v", st)

		// Deleting the domain last: the sends above needed it.
		d := ok(c.Domains.Create(ctx, "gone.example"))(t)
		testserver.Must(t, c.Domains.Delete(ctx, d.ID, nil) == nil, "delete domain")
		_, err := c.Domains.Get(ctx, d.ID)
		var apiErr *carteiro.Error
		testserver.Must(t, errors.As(err, &apiErr) && apiErr.Status == 404 && apiErr.Code == carteiro.CodeNotFound && apiErr.RequestID != "",
			"deleted domain: %v", err)

		missing := rec.missing()
		testserver.Must(t, len(missing) == 0, "routes no SDK call reached: %v", missing)
	})
}

func sdkDomains(t *testing.T, ctx context.Context, ts *testserver.TestServer, c *carteiro.Client) {
	created := ok(c.Domains.Create(ctx, "news.example"))(t)
	testserver.Must(t, created.Name == "news.example" && created.Status == "pending" && len(created.Records) >= 3, "created %+v", created)
	for _, r := range created.Records {
		if r.Type == "TXT" {
			ts.DNS.SetTXT(r.Host, r.Value)
		} else {
			ts.DNS.SetCNAME(r.Host, r.Value)
		}
	}
	v := ok(c.Domains.Verify(ctx, created.ID))(t)
	testserver.Must(t, v.Status == "verified" && v.Checks.DKIM.Status == "pass", "verify %+v", v)
	d := ok(c.Domains.Get(ctx, created.ID))(t)
	testserver.Must(t, d.VerifiedAt != nil && len(d.DNSRecordsToPublish) > 0, "get %+v", d)
	all := collect(t, c.Domains.List(ctx))
	testserver.Must(t, len(all) == 2, "list %+v", all)
	h := ok(c.Domains.Health(ctx, created.ID))(t)
	testserver.Must(t, h.DomainID == created.ID && h.DNS.SPF.Status != "" && len(h.Recommendations) > 0, "health %+v", h)
	_, err := c.Domains.Warmup(ctx, created.ID)
	testserver.Must(t, err == nil, "warmup: %v", err)
}

func sdkEmails(t *testing.T, ctx context.Context, ts *testserver.TestServer, c *carteiro.Client, smtp *testutil.SMTPServer) {
	sent := ok(c.Emails.Send(ctx, &carteiro.SendEmailRequest{From: "Loja <orders@shop.example>", To: []string{"ana@customer.example"},
		Subject: "SDK pedido", HTML: "<p>Olá</p>", Tags: []carteiro.Tag{{Name: "kind", Value: "sdk"}},
		Attachments: []carteiro.Attachment{{Filename: "a.txt", Content: []byte("anexo"), ContentType: "text/plain", Disposition: "attachment"}}}))(t)
	testserver.Must(t, sent.Status == "queued" && sent.ID != "", "send %+v", sent)
	_, err := smtp.WaitForMessages(1, 10*time.Second)
	testserver.Must(t, err == nil, "the SDK's email did not reach SMTP: %v", err)
	waitStatus(t, ts, ts.LiveKey, sent.ID, "delivered")

	e := ok(c.Emails.Get(ctx, sent.ID))(t)
	testserver.Must(t, e.Status == "delivered" && e.Subject != nil && *e.Subject == "SDK pedido" && e.DeliveredAt != nil, "get %+v", e)
	tl := ok(c.Emails.Events(ctx, sent.ID))(t)
	testserver.Must(t, len(tl.Events) >= 3 && tl.Events[0].Type == "queued", "events %+v", tl)

	// The same key twice sends once (D22), and the answer is the first.
	again := ok(c.Emails.Send(ctx, &carteiro.SendEmailRequest{From: "orders@shop.example", To: []string{"bia@customer.example"},
		Subject: "once", Text: "t", IdempotencyKey: "order-42"}))(t)
	twice := ok(c.Emails.Send(ctx, &carteiro.SendEmailRequest{From: "orders@shop.example", To: []string{"bia@customer.example"},
		Subject: "once", Text: "t", IdempotencyKey: "order-42"}))(t)
	testserver.Must(t, again.ID == twice.ID, "idempotent sends %s and %s", again.ID, twice.ID)

	batch := ok(c.Emails.SendBatch(ctx, []carteiro.SendEmailRequest{
		{From: "orders@shop.example", To: []string{"c@customer.example"}, Subject: "b1", Text: "t", IsSandbox: true},
		{From: "x@unverified.example", To: []string{"c@customer.example"}, Subject: "b2", Text: "t"},
	}))(t)
	testserver.Must(t, len(batch) == 2 && batch[0].OK && batch[0].Data != nil && !batch[1].OK && batch[1].Error != "", "batch %+v", batch)

	// A validation error is a *carteiro.Error with the field (D11).
	_, err = c.Emails.Send(ctx, &carteiro.SendEmailRequest{From: "orders@shop.example", Subject: "s", Text: "t"})
	var apiErr *carteiro.Error
	testserver.Must(t, errors.As(err, &apiErr) && apiErr.Status == 422 && apiErr.Code == carteiro.CodeValidation && apiErr.Field == "to" &&
		apiErr.Reason != "" && apiErr.RequestID != "", "no recipients: %#v", err)

	later := time.Now().Add(time.Hour)
	scheduled := ok(c.Emails.Send(ctx, &carteiro.SendEmailRequest{From: "orders@shop.example", To: []string{"d@customer.example"},
		Subject: "later", Text: "t", ScheduledAt: &later}))(t)
	testserver.Must(t, scheduled.Status == "scheduled", "scheduled %+v", scheduled)
	testserver.Must(t, c.Emails.Cancel(ctx, scheduled.ID) == nil, "cancel")
	resent := ok(c.Emails.Resend(ctx, scheduled.ID))(t)
	testserver.Must(t, resent.ID != scheduled.ID, "resend %+v", resent)

	// Pages of 2 walked by the iterator: every email once, newest first.
	var ids []string
	for e, err := range c.Emails.List(ctx, &carteiro.EmailListParams{Limit: 2}) {
		testserver.Must(t, err == nil, "list: %v", err)
		ids = append(ids, e.ID)
	}
	testserver.Must(t, len(ids) == 5 && ids[len(ids)-1] == sent.ID, "listed %v", ids)
	tagged := collect(t, c.Emails.List(ctx, &carteiro.EmailListParams{Tag: "kind:sdk"}))
	testserver.Must(t, len(tagged) == 1 && tagged[0].ID == sent.ID, "tag filter %+v", tagged)
	tags := ok(c.Emails.Tags(ctx))(t)
	testserver.Must(t, len(tags) == 1 && tags[0].Name == "kind", "tags %+v", tags)
}

func sdkSenders(t *testing.T, ctx context.Context, ts *testserver.TestServer, c *carteiro.Client) {
	s := ok(c.Senders.Create(ctx, &carteiro.CreateSenderRequest{Email: "maria@gmail.example", DisplayName: "Maria"}))(t)
	testserver.Must(t, s.VerificationToken != nil && s.VerifiedAt == nil, "created %+v", s)
	v := ok(c.Senders.Verify(ctx, *s.VerificationToken))(t)
	testserver.Must(t, v.ID == s.ID, "verified %+v", v)
	list := collect(t, c.Senders.List(ctx))
	testserver.Must(t, len(list) == 1 && list[0].VerifiedAt != nil, "senders %+v", list)
	testserver.Must(t, c.Senders.Delete(ctx, s.ID) == nil, "delete sender")
}

func sdkWebhooks(t *testing.T, ctx context.Context, c *carteiro.Client, rcv *testutil.TLSReceiver) {
	secret := "my-own-secret-0123"
	h := ok(c.Webhooks.Create(ctx, &carteiro.CreateWebhookRequest{URL: rcv.URL() + "/hooks", Events: []string{"email.sent"}, Secret: secret}))(t)
	testserver.Must(t, h.Status == "active" && h.SecretPreview != nil, "created %+v", h)
	h = ok(c.Webhooks.Update(ctx, h.ID, &carteiro.UpdateWebhookRequest{Description: carteiro.Set("sdk")}))(t)
	testserver.Must(t, h.Description != nil && *h.Description == "sdk", "updated %+v", h)
	h = ok(c.Webhooks.Update(ctx, h.ID, &carteiro.UpdateWebhookRequest{Description: carteiro.Null[string]()}))(t)
	testserver.Must(t, h.Description == nil, "cleared %+v", h)
	testserver.Must(t, c.Webhooks.SetStatus(ctx, h.ID, "paused") == nil && c.Webhooks.SetStatus(ctx, h.ID, "active") == nil, "set status")
	got := ok(c.Webhooks.Get(ctx, h.ID))(t)
	testserver.Must(t, got.Status == "active", "get %+v", got)
	list := collect(t, c.Webhooks.List(ctx, "active"))
	testserver.Must(t, len(list) == 1 && list[0].HasSecret, "list %+v", list)

	// A real delivery verifies with the SDK (both schemes) and with the
	// official library, and fails once a body byte changes.
	deliveryID := ok(c.Webhooks.Test(ctx, h.ID, "email.delivered"))(t)
	reqs, err := rcv.WaitForRequests(1, 10*time.Second)
	testserver.Must(t, err == nil, "test delivery did not arrive: %v", err)
	checkSDKVerify(t, reqs[0], secret, true)
	waitFor(t, func() bool {
		ds := collect(t, c.Webhooks.Deliveries(ctx, h.ID, &carteiro.DeliveryListParams{Status: "success"}))
		return len(ds) == 1 && ds[0].ID == deliveryID
	})

	rotated := ok(c.Webhooks.RotateSecret(ctx, h.ID))(t)
	rcv.Reset()
	ok(c.Webhooks.Test(ctx, h.ID, ""))(t)
	reqs, err = rcv.WaitForRequests(1, 10*time.Second)
	testserver.Must(t, err == nil, "second test delivery did not arrive: %v", err)
	checkSDKVerify(t, reqs[0], rotated.Secret, false)
	testserver.Must(t, errors.Is(webhook.Verify(reqs[0].Body, reqs[0].Header, secret), webhook.ErrInvalidSignature),
		"the secret rotated away still verifies")
	testserver.Must(t, c.Webhooks.Delete(ctx, h.ID) == nil, "delete webhook")
}

// checkSDKVerify: the SDK's webhook.Verify accepts a real delivery through
// either scheme and refuses it after one body byte changes; the official Go
// library agrees on the Standard Webhooks signature.
func checkSDKVerify(t *testing.T, req testutil.ReceivedRequest, secret string, raw bool) {
	t.Helper()
	ev, err := webhook.ConstructEvent(req.Body, req.Header, secret)
	testserver.Must(t, err == nil && ev.ID == req.Header.Get("webhook-id") && ev.Type != "", "a real delivery: %v %+v", err, ev)
	d48 := req.Header.Clone()
	d48.Del(webhook.HeaderSignature)
	testserver.Must(t, webhook.Verify(req.Body, d48, secret) == nil, "X-Service-Signature-V2 of a real delivery: %v", webhook.Verify(req.Body, d48, secret))
	flipped := append([]byte(nil), req.Body...)
	flipped[len(flipped)/2] ^= 0x01
	for name, h := range map[string]http.Header{"standard": req.Header, "D48": d48} {
		err := webhook.Verify(flipped, h, secret)
		testserver.Must(t, errors.Is(err, webhook.ErrInvalidSignature), "%s: a flipped body byte verified: %v", name, err)
	}
	var wh *standardwebhooks.Webhook
	if raw {
		wh, err = standardwebhooks.NewWebhookRaw([]byte(secret))
	} else {
		wh, err = standardwebhooks.NewWebhook(secret)
	}
	testserver.Must(t, err == nil, "official library: %v", err)
	testserver.Must(t, wh.Verify(req.Body, req.Header) == nil, "the official library refuses what the SDK accepts")
}

func sdkAudiencesAndBroadcasts(t *testing.T, ctx context.Context, c *carteiro.Client) {
	a := ok(c.Audiences.Create(ctx, &carteiro.CreateAudienceRequest{Name: "clientes", Description: carteiro.String("all")}))(t)
	testserver.Must(t, c.Audiences.Update(ctx, a.ID, &carteiro.UpdateAudienceRequest{Description: carteiro.Null[string]()}) == nil, "update audience")
	got := ok(c.Audiences.Get(ctx, a.ID))(t)
	testserver.Must(t, got.Description == nil, "description not cleared: %+v", got)

	ct := ok(c.Contacts.Create(ctx, a.ID, &carteiro.CreateContactRequest{Email: "ana@customer.example", FirstName: "Ana",
		Metadata: map[string]any{"plan": "pro"}}))(t)
	imp := ok(c.Contacts.Import(ctx, a.ID, []carteiro.CreateContactRequest{{Email: "bia@customer.example"}, {Email: "ana@customer.example"},
		{Email: "caio@customer.example"}}))(t)
	testserver.Must(t, imp.Inserted == 2 && imp.Skipped == 1, "import %+v", imp)
	testserver.Must(t, c.Contacts.Update(ctx, a.ID, ct.ID, &carteiro.UpdateContactRequest{FirstName: carteiro.Null[string](),
		LastName: carteiro.Set("Souza")}) == nil, "update contact")
	contacts := collect(t, c.Contacts.List(ctx, a.ID, &carteiro.PageParams{Limit: 2}))
	testserver.Must(t, len(contacts) == 3, "contacts over pages of 2: %+v", contacts)
	for _, x := range contacts {
		if x.ID == ct.ID {
			testserver.Must(t, x.FirstName == nil && x.LastName != nil && *x.LastName == "Souza", "updated contact %+v", x)
		}
	}
	other := ok(c.Contacts.Create(ctx, a.ID, &carteiro.CreateContactRequest{Email: "gone@customer.example"}))(t)
	testserver.Must(t, c.Contacts.Delete(ctx, a.ID, other.ID) == nil, "delete contact")

	br := ok(c.Broadcasts.Create(ctx, &carteiro.CreateBroadcastRequest{AudienceID: a.ID, FromEmail: "news@shop.example",
		Subject: "Novidades", HTML: "<p>Oi {{firstName}}</p>"}))(t)
	sending := ok(c.Broadcasts.Send(ctx, br.ID))(t)
	testserver.Must(t, sending.Status == "sending", "send broadcast %+v", sending)
	later := time.Now().Add(24 * time.Hour)
	sched := ok(c.Broadcasts.Create(ctx, &carteiro.CreateBroadcastRequest{AudienceID: a.ID, FromEmail: "news@shop.example",
		Subject: "Depois", HTML: "<p>x</p>", ScheduledAt: &later}))(t)
	cancelled := ok(c.Broadcasts.Cancel(ctx, sched.ID))(t)
	testserver.Must(t, cancelled.Status == "cancelled" && cancelled.CancelledAt != nil, "cancel broadcast %+v", cancelled)
	got2 := ok(c.Broadcasts.Get(ctx, br.ID))(t)
	testserver.Must(t, got2.AudienceID == a.ID, "get broadcast %+v", got2)
	list := collect(t, c.Broadcasts.List(ctx, &carteiro.BroadcastListParams{Limit: 1}))
	testserver.Must(t, len(list) == 2, "broadcasts over pages of 1: %+v", list)

	extra := ok(c.Audiences.Create(ctx, &carteiro.CreateAudienceRequest{Name: "vazia"}))(t)
	audiences := collect(t, c.Audiences.List(ctx, &carteiro.PageParams{Limit: 1}))
	testserver.Must(t, len(audiences) == 2, "audiences over pages of 1: %+v", audiences)
	testserver.Must(t, c.Audiences.Delete(ctx, extra.ID) == nil, "delete audience")
}

func sdkTemplates(t *testing.T, ctx context.Context, c *carteiro.Client) {
	tpl := ok(c.Templates.Create(ctx, &carteiro.CreateTemplateRequest{Name: "boas-vindas", Subject: carteiro.String("Oi {{name}}"),
		HTML: "<p>Oi {{name}}</p>", Variables: []carteiro.TemplateVariable{{Name: "name", DefaultValue: "cliente"}}}))(t)
	testserver.Must(t, tpl.Format == "html" && tpl.IsActive, "created %+v", tpl)
	up := ok(c.Templates.Update(ctx, tpl.ID, &carteiro.UpdateTemplateRequest{Name: "welcome", Subject: carteiro.Null[string]()}))(t)
	testserver.Must(t, up.Name == "welcome" && up.Subject == nil, "updated %+v", up)
	got := ok(c.Templates.Get(ctx, tpl.ID))(t)
	testserver.Must(t, got.Name == "welcome", "get %+v", got)
	testserver.Must(t, len(collect(t, c.Templates.List(ctx))) == 1, "list")
	pv := ok(c.Templates.Preview(ctx, &carteiro.RenderTemplateRequest{HTML: "<p>Oi {{name}}</p>", Format: "html", Variables: map[string]any{"name": "Ana"}}))(t)
	testserver.Must(t, pv.HTML != "" && strings.Contains(pv.HTML, "Oi Ana"), "preview %+v", pv)
	formatted := ok(c.Templates.Format(ctx, "<div><p>x</p></div>", "html"))(t)
	testserver.Must(t, formatted != "", "format %q", formatted)
	tr := ok(c.Templates.TestRender(ctx, &carteiro.RenderTemplateRequest{HTML: `<p>ok</p><script>alert(1)</script>`, Format: "html"}))(t)
	testserver.Must(t, tr.SanitizeReport.Scripts == 1 && !strings.Contains(tr.HTML, "<script"), "test-render %+v", tr)
	testserver.Must(t, c.Templates.Delete(ctx, tpl.ID) == nil, "delete template")
}

func sdkSuppressionsAndPrivacy(t *testing.T, ctx context.Context, c *carteiro.Client) {
	s := ok(c.Suppressions.Create(ctx, &carteiro.CreateSuppressionRequest{Email: "blocked@customer.example"}))(t)
	testserver.Must(t, s.Status == "active" && s.Reason == "manual", "created %+v", s)
	list := collect(t, c.Suppressions.List(ctx, &carteiro.SuppressionListParams{Email: "blocked"}))
	testserver.Must(t, len(list) == 1 && list[0].ID == s.ID, "list %+v", list)
	testserver.Must(t, c.Suppressions.Reactivate(ctx, s.ID) == nil, "reactivate")
	got := ok(c.Suppressions.Get(ctx, s.ID))(t)
	testserver.Must(t, got.Status != "active", "reactivated %+v", got)
	testserver.Must(t, c.Suppressions.Delete(ctx, s.ID) == nil, "delete suppression")

	er := ok(c.Privacy.Erase(ctx, "ana@customer.example"))(t)
	testserver.Must(t, er.ContactsDeleted == 1 && er.EmailsRedacted >= 1, "erase %+v", er)
}
