package e2e

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/sdk/go/carteiro"
)

// sdkInbound drives the inbound routes (D75) through the Go SDK: it turns
// receiving on for shop.example, receives two real messages through the
// inbound listener over SMTP, and reads them back (list pages, detail, raw
// bytes, attachment) before deleting one.
func sdkInbound(t *testing.T, ctx context.Context, ts *testserver.TestServer, c *carteiro.Client) {
	t.Helper()
	var domainID string
	for d, err := range c.Domains.List(ctx) {
		testserver.Must(t, err == nil, "domains: %v", err)
		if d.Name == "shop.example" {
			domainID = d.ID
		}
	}
	testserver.Must(t, domainID != "", "shop.example is not listed")

	on := ok(c.Domains.SetInbound(ctx, domainID, true))(t)
	testserver.Must(t, on.DomainID == domainID && on.Enabled && on.MX.Type == "MX" && on.MX.Host == "shop.example" &&
		on.MX.Value == inboundMX, "inbound on: %+v", on)
	ts.DNS.SetMX("shop.example", testutil.MX{Host: inboundMX + ".", Pref: uint16(on.MX.Priority)})
	ts.DNS.SetA(inboundMX, "127.0.0.1")
	v := ok(c.Domains.Verify(ctx, domainID))(t)
	testserver.Must(t, v.Checks.MX != nil && v.Checks.MX.Status == "pass", "verify with inbound on: %+v", v.Checks)

	// Two replies, as an MTA sends them to the domain's MX.
	addr := (&inboundRig{ts: ts}).mxAddr(t, "shop.example")
	attachment := randomBytes(3000)
	first := receivedMessage("support@shop.example", "sdk-1@sender.example", "", attachment)
	second := receivedMessage("sales@shop.example", "sdk-2@sender.example", "", attachment)
	err := sendSMTP(addr, "mta.sender.example", "joao@sender.example", []string{"support@shop.example"}, first)
	testserver.Must(t, err == nil, "send to support: %v", err)
	waitFor(t, func() bool {
		return len(collect(t, c.InboundEmails.List(ctx, &carteiro.InboundEmailListParams{ToAddress: "support@"}))) == 1
	})
	// The second arrives later, so it is listed first.
	err = sendSMTP(addr, "mta.sender.example", "joao@sender.example", []string{"sales@shop.example"}, second)
	testserver.Must(t, err == nil, "send to sales: %v", err)

	// Pages of one item: the iterator follows the cursor (D27).
	var listed []carteiro.InboundEmail
	waitFor(t, func() bool {
		listed = collect(t, c.InboundEmails.List(ctx, &carteiro.InboundEmailListParams{ToAddress: "@SHOP.example", Limit: 1}))
		return len(listed) == 2
	})
	testserver.Must(t, listed[0].RcptTo[0] == "sales@shop.example" && listed[1].RcptTo[0] == "support@shop.example" &&
		!listed[0].ReceivedAt.Before(listed[1].ReceivedAt), "listed %+v", listed)
	none := collect(t, c.InboundEmails.List(ctx, &carteiro.InboundEmailListParams{FromAddress: "nobody@"}))
	testserver.Must(t, len(none) == 0, "fromAddress filter: %+v", none)

	id := listed[1].ID
	got := ok(c.InboundEmails.Get(ctx, id))(t)
	testserver.Must(t, got.ID == id && got.DomainID == domainID && got.Subject == "Re: Pedido nº 42" && got.MailFrom == "joao@sender.example" &&
		got.MessageID != nil && *got.MessageID == "sdk-1@sender.example" && got.Size == int64(len(first)), "get %+v", got)
	testserver.Must(t, got.Text == "Olá, obrigado pelo pedido.\r\n.\r\n..linha com ponto" && got.HTML == "<p>Olá, obrigado pelo pedido.</p>",
		"bodies %q %q", got.Text, got.HTML)
	testserver.Must(t, len(got.Attachments) == 1 && got.Attachments[0].Filename == "nota fiscal.pdf" &&
		got.Attachments[0].Size == int64(len(attachment)), "attachments %+v", got.Attachments)

	raw := ok(c.InboundEmails.Raw(ctx, id))(t)
	testserver.Must(t, bytes.Equal(raw, first), "raw differs from what was sent:\n%q", raw)
	att := ok(c.InboundEmails.Attachment(ctx, id, got.Attachments[0].ID))(t)
	testserver.Must(t, bytes.Equal(att.Data, attachment) && att.ContentType == "application/pdf" && att.Filename == "nota fiscal.pdf",
		"attachment %s %q, %d bytes", att.ContentType, att.Filename, len(att.Data))

	testserver.Must(t, c.InboundEmails.Delete(ctx, id) == nil, "delete inbound email")
	_, err = c.InboundEmails.Raw(ctx, id)
	var apiErr *carteiro.Error
	testserver.Must(t, errors.As(err, &apiErr) && apiErr.Status == 404 && apiErr.Code == carteiro.CodeNotFound, "raw after delete: %v", err)
	left := collect(t, c.InboundEmails.List(ctx, nil))
	testserver.Must(t, len(left) == 1 && left[0].ID == listed[0].ID, "left %+v", left)

	off := ok(c.Domains.SetInbound(ctx, domainID, false))(t)
	testserver.Must(t, !off.Enabled, "inbound off: %+v", off)
}
