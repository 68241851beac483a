package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/smtp"
	"net/url"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// inboundMX is the inbound host the test DNS publishes (D75).
const inboundMX = "mx.carteiro.test"

// hookSecret signs the test webhook's requests.
const hookSecret = "inbound-test-secret-0123456789"

// inboundRig is a server whose shop.example sends (through a relay sink)
// and receives (its MX points at the inbound listener), with a webhook
// receiver subscribed to email.received.
type inboundRig struct {
	ts     *testserver.TestServer
	sink   *testutil.SMTPServer
	domain createdDomain
	hook   *testutil.TLSReceiver
	hookID string
}

func newInboundRig(t *testing.T, b testserver.Backend, env map[string]string) *inboundRig {
	t.Helper()
	rcv := testutil.NewTLSReceiver(t, nil)
	settings := map[string]string{
		"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0", "CARTEIRO_INBOUND_HOST": inboundMX,
		"CARTEIRO_INBOUND_RATE_LIMIT_IP": "1000,1000",
		"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
	}
	for k, v := range env {
		settings[k] = v
	}
	ts, sink, d := relayServer(t, b, settings)
	enableInbound(t, ts, ts.LiveKey, d.ID, true)
	ts.DNS.SetMX(d.Name, testutil.MX{Host: inboundMX + ".", Pref: 10})
	ts.DNS.SetA(inboundMX, "127.0.0.1")
	hook := createHook(t, ts, rcv.URL(), []string{"email.received"}, hookSecret)
	return &inboundRig{ts: ts, sink: sink, domain: d, hook: rcv, hookID: hook["id"].(string)}
}

// mxAddr finds where mail for domain goes as a sending MTA would: its MX
// in the test DNS, that host's address, and the listener's port (port 25
// is the operator's forwarding, docs/inbound.md).
func (r *inboundRig) mxAddr(t *testing.T, domain string) string {
	t.Helper()
	res, err := dnscheck.NewResolver(r.ts.DNS.Addr(), 2*time.Second)
	testserver.Must(t, err == nil, "resolver: %v", err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	mxs, err := res.LookupMX(ctx, domain)
	testserver.Must(t, err == nil && len(mxs) > 0, "MX of %s: %v", domain, err)
	hosts, err := res.LookupHost(ctx, mxs[0].Host)
	testserver.Must(t, err == nil && len(hosts) > 0, "address of %s: %v", mxs[0].Host, err)
	_, port, _ := net.SplitHostPort(r.ts.InboundAddr())
	return net.JoinHostPort(hosts[0], port)
}

// sendSMTP sends raw as an MTA does: EHLO, STARTTLS when offered (the
// certificate is not checked, as MTAs do for opportunistic TLS), then one
// transaction. It returns the first refusal.
func sendSMTP(addr, helo, from string, to []string, raw []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello(helo); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{InsecureSkipVerify: true}); err != nil { //nolint:gosec // opportunistic TLS, as MTAs
			return err
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// inboundItem is an item of GET /inbound-emails, or GET /inbound-emails/:id.
type inboundItem struct {
	ID                    string   `json:"id"`
	From                  string   `json:"from"`
	To                    []string `json:"to"`
	Cc                    []string `json:"cc"`
	Subject               string   `json:"subject"`
	MessageID             *string  `json:"messageId"`
	MailFrom              string   `json:"mailFrom"`
	RcptTo                []string `json:"rcptTo"`
	SPF                   string   `json:"spf"`
	DKIM                  string   `json:"dkim"`
	DMARC                 string   `json:"dmarc"`
	AuthenticationResults string   `json:"authenticationResults"`
	InReplyToEmailID      *string  `json:"inReplyToEmailId"`
	Attachments           []struct {
		ID          string `json:"id"`
		Filename    string `json:"filename"`
		ContentType string `json:"contentType"`
		Size        int64  `json:"size"`
	} `json:"attachments"`
	Text string `json:"text"`
	HTML string `json:"html"`
	Size int64  `json:"size"`
}

// inboundTo lists the received messages whose recipients contain to.
func (r *inboundRig) inboundTo(t *testing.T, to string) []inboundItem {
	t.Helper()
	resp := r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails?toAddress=" + url.QueryEscape(to), Key: r.ts.LiveKey})
	testserver.Expect(t, resp, http.StatusOK, "")
	var out struct {
		InboundEmails []inboundItem `json:"inboundEmails"`
	}
	resp.Decode(t, &out)
	return out.InboundEmails
}

// inboundDetail is GET /inbound-emails/:id.
func (r *inboundRig) inboundDetail(t *testing.T, id string) inboundItem {
	t.Helper()
	resp := r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + id, Key: r.ts.LiveKey})
	testserver.Expect(t, resp, http.StatusOK, "")
	var out inboundItem
	resp.Decode(t, &out)
	return out
}

// receivedHooks returns the email.received payloads received so far.
func (r *inboundRig) receivedHooks(t *testing.T, n int) []hookPayload {
	t.Helper()
	reqs, err := r.hook.WaitForRequests(n, 15*time.Second)
	testserver.Must(t, err == nil, "webhooks: %v", err)
	var out []hookPayload
	for _, req := range reqs {
		testserver.Must(t, receiverVerify(req, hookSecret, time.Now()) == nil, "webhook signature does not verify: %v", receiverVerify(req, hookSecret, time.Now()))
		err := verifyWithGoLibrary(t, hookSecret, true, req.Header, req.Body)
		testserver.Must(t, err == nil, "Standard Webhooks signature does not verify: %v", err)
		var p hookPayload
		testserver.Must(t, json.Unmarshal(req.Body, &p) == nil, "webhook body %s", req.Body)
		out = append(out, p)
	}
	return out
}
