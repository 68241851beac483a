package submission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode non-UTF-8 parts and headers
	"github.com/emersion/go-message/mail"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// The X-Carteiro headers of D74: honoured, then removed from the message.
const (
	headerTags        = "X-Carteiro-Tags"
	headerIdempotency = "X-Carteiro-Idempotency-Key"
)

// errUnreadable is a message go-message cannot parse.
var errUnreadable = errors.New("unreadable message")

// buildRequest turns one SMTP transaction into the POST /emails request
// (D74): From, Subject, Reply-To and the custom headers from the message,
// html, text and attachments from its MIME parts, the recipients from the
// envelope. Reserved headers (D18, D66: Date, MIME-Version, Message-ID...)
// are dropped rather than refused, since every mail client writes them;
// the service writes its own. A refusal is a 554 5.6.0 reply.
func buildRequest(envelopeTo []string, raw []byte) (*app.SendRequest, error) {
	entity, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return nil, unreadable("the message is not valid MIME")
	}
	h := mail.Header{Header: entity.Header}
	r := &app.SendRequest{}
	from, err := h.AddressList("From")
	if err != nil || len(from) != 1 {
		return nil, unreadable("the From header must hold exactly one address")
	}
	r.From = &app.AddressInput{Object: true, Email: from[0].Address, Name: from[0].Name}
	if subject, err := h.Subject(); err == nil {
		r.Subject = &subject
	} else {
		return nil, unreadable("the Subject header cannot be decoded")
	}
	if r.To, r.Cc, r.Bcc, err = recipients(h, envelopeTo); err != nil {
		return nil, err
	}
	if replyTo, err := h.AddressList("Reply-To"); err == nil && len(replyTo) > 0 {
		r.ReplyTo = addressList(replyTo)
	}
	if r.Tags, err = parseTags(h.Get(headerTags)); err != nil {
		return nil, err
	}
	r.IdempotencyKey = strings.TrimSpace(h.Get(headerIdempotency))
	r.MessageID = messageID(h)
	r.Headers = customHeaders(h)
	if err := readParts(entity, r); err != nil {
		return nil, err
	}
	// D22: the same key with the same transaction replays; with another
	// message it is refused.
	sum := sha256.New()
	fmt.Fprintf(sum, "%q\n", envelopeTo)
	sum.Write(raw)
	r.BodyHash = hex.EncodeToString(sum.Sum(nil))
	return r, nil
}

// recipients applies D74: the envelope recipients are the recipients;
// those the To or Cc header names keep their place (with the header's
// display name), the others become bcc. An address only in the headers is
// not sent to. At least one envelope recipient must be in To, since the
// contract requires one and moving a bcc there would reveal it.
func recipients(h mail.Header, envelope []string) (to, cc, bcc app.AddressList, err error) {
	headerTo, _ := h.AddressList("To")
	headerCc, _ := h.AddressList("Cc")
	find := func(list []*mail.Address, addr string) *mail.Address {
		for _, a := range list {
			if strings.EqualFold(a.Address, addr) {
				return a
			}
		}
		return nil
	}
	to.Items, cc.Items, bcc.Items = []app.AddressInput{}, []app.AddressInput{}, []app.AddressInput{}
	for _, rcpt := range envelope {
		if a := find(headerTo, rcpt); a != nil {
			to.Items = append(to.Items, app.AddressInput{Object: true, Email: rcpt, Name: a.Name})
		} else if a := find(headerCc, rcpt); a != nil {
			cc.Items = append(cc.Items, app.AddressInput{Object: true, Email: rcpt, Name: a.Name})
		} else {
			bcc.Items = append(bcc.Items, app.AddressInput{Object: true, Email: rcpt})
		}
	}
	if len(to.Items) == 0 {
		return to, cc, bcc, unreadable("at least one RCPT TO address must also be in the To header")
	}
	return to, cc, bcc, nil
}

func addressList(list []*mail.Address) app.AddressList {
	out := app.AddressList{Items: make([]app.AddressInput, len(list))}
	for i, a := range list {
		out.Items[i] = app.AddressInput{Object: true, Email: a.Address, Name: a.Name}
	}
	return out
}

// parseTags reads "X-Carteiro-Tags: name=value, name2=value2" (D74).
func parseTags(v string) ([]carteiro.Tag, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	var tags []carteiro.Tag
	for _, item := range strings.Split(v, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, unreadable("X-Carteiro-Tags must be name=value pairs separated by commas")
		}
		tags = append(tags, carteiro.Tag{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	return tags, nil
}

// messageID keeps the client's Message-ID (D74) when it is a plausible
// id-left@id-right; anything else is ignored and the service makes one.
func messageID(h mail.Header) string {
	id, err := h.MessageID()
	if err != nil || id == "" || len(id) > 250 || !strings.Contains(id, "@") ||
		strings.ContainsAny(id, " \t\r\n<>\"") {
		return ""
	}
	return id
}

// customHeaders are the message's headers that POST /emails would take as
// custom headers: not reserved (D18, D66), not the X-Carteiro ones. Of a
// repeated header the first is kept.
func customHeaders(h mail.Header) map[string]string {
	out := map[string]string{}
	seen := map[string]bool{}
	fields := h.Fields()
	for fields.Next() {
		name := fields.Key()
		lower := strings.ToLower(name)
		if seen[lower] || carteiro.IsReservedHeader(name) || lower == "reply-to" || // Reply-To becomes replyTo

			strings.EqualFold(name, headerTags) || strings.EqualFold(name, headerIdempotency) {
			continue
		}
		value, err := fields.Text()
		if err != nil {
			value = fields.Value()
		}
		seen[lower] = true
		out[name] = strings.Join(strings.Fields(value), " ")
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readParts walks the MIME tree: the first text/plain and text/html that
// are not attachments are the text and html; every other leaf is an
// attachment, inline (D14's cid) when it has a Content-ID and is not
// marked as an attachment.
func readParts(entity *message.Entity, r *app.SendRequest) error {
	n := 0
	err := entity.Walk(func(_ []int, part *message.Entity, err error) error {
		if err != nil {
			return errUnreadable
		}
		mediaType, params, _ := part.Header.ContentType()
		if strings.HasPrefix(mediaType, "multipart/") {
			return nil
		}
		if mediaType == "" {
			mediaType = "text/plain"
		}
		disp, dispParams, _ := part.Header.ContentDisposition()
		filename := dispParams["filename"]
		if filename == "" {
			filename = params["name"]
		}
		body, err := io.ReadAll(part.Body)
		if err != nil {
			return errUnreadable
		}
		isBody := disp != "attachment" && filename == ""
		switch {
		case isBody && mediaType == "text/plain" && r.Text == nil:
			text := string(body)
			r.Text = &text
			return nil
		case isBody && mediaType == "text/html" && r.HTML == nil:
			html := string(body)
			r.HTML = &html
			return nil
		}
		n++
		cid := strings.Trim(part.Header.Get("Content-Id"), "<> ")
		a := carteiro.AttachmentInput{Filename: filename, Decoded: body, ContentType: mediaType,
			Disposition: carteiro.DispositionAttachment}
		if cid != "" && disp != "attachment" {
			a.Disposition, a.CID, a.HasCID = carteiro.DispositionInline, cid, true
		}
		if a.Filename == "" {
			a.Filename = defaultFilename(n, mediaType)
		}
		if len(body) == 0 {
			a.ContentReason = "empty"
		}
		r.Attachments = append(r.Attachments, a)
		return nil
	})
	if err != nil {
		return unreadable("a MIME part cannot be decoded")
	}
	return nil
}

// defaultFilename names a part that has none (inline images often do
// not): "part-2.png".
func defaultFilename(n int, mediaType string) string {
	name := fmt.Sprintf("part-%d", n)
	if exts, _ := mime.ExtensionsByType(mediaType); len(exts) > 0 {
		name += exts[0]
	}
	return name
}
