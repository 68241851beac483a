package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// receivedMessage is a reply as mail clients write it: multipart/mixed
// with text and html alternatives (quoted-printable, non-ASCII) and a
// binary attachment, CRLF line ends.
func receivedMessage(to, messageID, inReplyTo string, attachment []byte) []byte {
	var b strings.Builder
	b.WriteString("From: =?UTF-8?Q?Jo=C3=A3o_Silva?= <joao@sender.example>\r\n")
	b.WriteString("To: Support <" + to + ">\r\n")
	b.WriteString("Cc: team@shop.example\r\n")
	b.WriteString("Subject: =?UTF-8?Q?Re:_Pedido_n=C2=BA_42?=\r\n")
	b.WriteString("Message-ID: <" + messageID + ">\r\n")
	if inReplyTo != "" {
		b.WriteString("In-Reply-To: <" + inReplyTo + ">\r\nReferences: <older@sender.example> <" + inReplyTo + ">\r\n")
	}
	b.WriteString("Date: Fri, 27 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n")
	b.WriteString("--outer\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n")
	b.WriteString("--alt\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	b.WriteString("Ol=C3=A1, obrigado pelo pedido.\r\n.\r\n..linha com ponto\r\n")
	b.WriteString("--alt\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	b.WriteString("<p>Ol=C3=A1, obrigado pelo pedido.</p>\r\n")
	b.WriteString("--alt--\r\n")
	b.WriteString("--outer\r\nContent-Type: application/pdf; name=\"nota fiscal.pdf\"\r\n")
	b.WriteString("Content-Disposition: attachment; filename=\"nota fiscal.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	enc := base64.StdEncoding.EncodeToString(attachment)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n--outer--\r\n")
	return []byte(b.String())
}

// relayHeaders splits raw after its leading header fields whose first line
// matches added, with their continuation lines.
func relayHeaders(raw []byte, added *regexp.Regexp) (prefix, rest []byte) {
	rest = raw
	for {
		line, after, ok := bytes.Cut(rest, []byte("\r\n"))
		if !ok || !added.Match(line) {
			return raw[:len(raw)-len(rest)], rest
		}
		rest = after
		for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
			_, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		}
	}
}

func randomBytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(rand.IntN(256))
	}
	return out
}

// checkStored compares what the API shows of the message received for to
// with what was sent: raw byte for byte, fields as parsed, the attachment's
// bytes. It returns the stored item.
func (r *inboundRig) checkStored(t *testing.T, to string, raw, attachment []byte) inboundItem {
	t.Helper()
	return r.checkRelayed(t, to, raw, attachment, nil)
}

// checkRelayed is checkStored for a message that came through MTAs: the
// stored raw message is what was sent with, before it, only header lines
// that added matches (the MTAs' Received), each with its folded lines.
func (r *inboundRig) checkRelayed(t *testing.T, to string, raw, attachment []byte, added *regexp.Regexp) inboundItem {
	t.Helper()
	var list []inboundItem
	waitFor(t, func() bool { list = r.inboundTo(t, to); return len(list) == 1 })
	got := r.inboundDetail(t, list[0].ID)
	testserver.Must(t, got.From == `"João Silva" <joao@sender.example>` || got.From == "João Silva <joao@sender.example>", "from %q", got.From)
	testserver.Must(t, len(got.To) == 1 && strings.Contains(got.To[0], to) && len(got.Cc) == 1 && got.Cc[0] == "team@shop.example", "to %v cc %v", got.To, got.Cc)
	testserver.Must(t, got.Subject == "Re: Pedido nº 42", "subject %q", got.Subject)
	testserver.Must(t, got.Text == "Olá, obrigado pelo pedido.\r\n.\r\n..linha com ponto", "text %q", got.Text)
	testserver.Must(t, got.HTML == "<p>Olá, obrigado pelo pedido.</p>", "html %q", got.HTML)
	testserver.Must(t, len(got.RcptTo) == 1 && got.RcptTo[0] == to, "envelope %v", got.RcptTo)
	testserver.Must(t, len(got.Attachments) == 1 && got.Attachments[0].Filename == "nota fiscal.pdf" &&
		got.Attachments[0].ContentType == "application/pdf" && got.Attachments[0].Size == int64(len(attachment)), "attachments %+v", got.Attachments)

	resp := r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + got.ID + "/raw", Key: r.ts.LiveKey})
	testserver.Expect(t, resp, http.StatusOK, "")
	testserver.Must(t, resp.Header.Get("Content-Type") == "message/rfc822", "raw content type %q", resp.Header.Get("Content-Type"))
	prefix, sent := []byte(nil), resp.Body
	if added != nil {
		prefix, sent = relayHeaders(resp.Body, added)
	}
	testserver.Must(t, bytes.Equal(sent, raw), "raw differs from what was sent (after %q):\n%q\nwant\n%q", prefix, sent, raw)
	testserver.Must(t, added == nil || len(prefix) > 0, "no header added by the relay in %q", resp.Body)
	testserver.Must(t, got.Size == int64(len(resp.Body)), "size %d, raw %d bytes", got.Size, len(resp.Body))

	resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + got.ID + "/attachments/" + got.Attachments[0].ID, Key: r.ts.LiveKey})
	testserver.Expect(t, resp, http.StatusOK, "")
	testserver.Must(t, bytes.Equal(resp.Body, attachment), "attachment bytes differ (%d bytes, want %d)", len(resp.Body), len(attachment))
	testserver.Must(t, resp.Header.Get("Content-Type") == "application/pdf" && strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment"),
		"attachment headers %v", resp.Header)
	resp = r.ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/inbound-emails/" + got.ID + "/attachments/9", Key: r.ts.LiveKey})
	testserver.Expect(t, resp, http.StatusNotFound, "NOT_FOUND")
	return got
}

// TestInboundReceivesFromRealClients (D75): swaks, Go's net/smtp and
// Python's smtplib deliver, with STARTTLS, to an address of an enabled
// domain through the MX the test DNS publishes; each message is stored
// byte for byte, parsed, its attachment served, and the webhook receiver
// gets a signed email.received.
func TestInboundReceivesFromRealClients(t *testing.T) {
	t.Parallel()
	swaks, err := exec.LookPath("swaks")
	if err != nil {
		testserver.RequireService(t, "swaks", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		testserver.RequireService(t, "python3", err)
	}
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		r := newInboundRig(t, b, nil)
		addr := r.mxAddr(t, "shop.example")
		host, port, _ := net.SplitHostPort(addr)
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()

		// swaks, with STARTTLS required.
		swaksAtt := randomBytes(3000)
		swaksRaw := receivedMessage("swaks@shop.example", "m1@sender.example", "", swaksAtt)
		file := filepath.Join(dir, "swaks.eml")
		// swaks ends the data with CRLF "." CRLF whatever the file ends
		// with, so the file leaves out the message's last CRLF.
		testserver.Must(t, os.WriteFile(file, bytes.TrimSuffix(swaksRaw, []byte("\r\n")), 0o600) == nil, "write message")
		out, err := exec.CommandContext(ctx, swaks, "--server", host, "--port", port, "--helo", "mail.sender.example", "--tls",
			"--from", "bounce@sender.example", "--to", "swaks@shop.example", "--data", "@"+file).CombinedOutput()
		testserver.Must(t, err == nil, "swaks: %v\n%s", err, out)
		testserver.Must(t, regexp.MustCompile(`<~\s+250 `).Match(out), "swaks: no 250 under TLS:\n%s", out)
		r.checkStored(t, "swaks@shop.example", swaksRaw, swaksAtt)

		// Go's net/smtp.
		goAtt := randomBytes(70000)
		goRaw := receivedMessage("go@shop.example", "m2@sender.example", "", goAtt)
		err = sendSMTP(addr, "mail.sender.example", "bounce@sender.example", []string{"go@shop.example"}, goRaw)
		testserver.Must(t, err == nil, "net/smtp: %v", err)
		r.checkStored(t, "go@shop.example", goRaw, goAtt)

		// Python's smtplib, with STARTTLS.
		pyAtt := randomBytes(1000)
		pyRaw := receivedMessage("py@shop.example", "m3@sender.example", "", pyAtt)
		pyFile := filepath.Join(dir, "py.eml")
		testserver.Must(t, os.WriteFile(pyFile, pyRaw, 0o600) == nil, "write message")
		script := fmt.Sprintf(`import smtplib, ssl
raw = open(%q, "rb").read()
with smtplib.SMTP(%q, %s, local_hostname="mail.sender.example", timeout=20) as s:
    s.starttls(context=ssl._create_unverified_context())
    s.sendmail("bounce@sender.example", ["py@shop.example"], raw)
`, pyFile, host, port)
		out, err = exec.CommandContext(ctx, python, "-c", script).CombinedOutput()
		testserver.Must(t, err == nil, "python smtplib: %v\n%s", err, out)
		r.checkStored(t, "py@shop.example", pyRaw, pyAtt)

		hooks := r.receivedHooks(t, 3)
		seen := map[string]bool{}
		for _, h := range hooks {
			testserver.Must(t, h.Type == "email.received", "webhook type %q", h.Type)
			d := h.Data
			to, _ := d["to"].([]any)
			testserver.Must(t, len(to) == 1, "webhook to %v", d["to"])
			seen[fmt.Sprint(to[0])] = true
			atts, _ := d["attachments"].([]any)
			testserver.Must(t, d["subject"] == "Re: Pedido nº 42" && d["text"] == "Olá, obrigado pelo pedido.\r\n.\r\n..linha com ponto" &&
				d["html"] == "<p>Olá, obrigado pelo pedido.</p>" && len(atts) == 1 && d["inReplyToEmailId"] == nil &&
				d["inboundEmailId"] != "" && d["spf"] != nil && d["dkim"] != nil && d["dmarc"] != nil && d["truncated"] == nil, "webhook data %v", d)
		}
		testserver.Must(t, len(seen) == 3, "webhooks for %v", seen)
	})
}
