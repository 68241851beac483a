package mta

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

// Message is what Build turns into RFC 5322 bytes. Bcc recipients are not
// part of it: they appear only in the SMTP envelope.
type Message struct {
	// MessageID is the id without angle brackets ("uuid@example.com");
	// required, since bounces and complaints are matched through it (D55).
	MessageID string
	// Date is the origination date; the zero time means now.
	Date time.Time
	From carteiro.Address
	// To and Cc are the visible recipients. With no To, the header reads
	// "undisclosed-recipients:;" as spam filters penalise a missing To.
	To, Cc  []carteiro.Address
	ReplyTo []carteiro.Address
	Subject string
	// HTML and Text are the bodies; either or both (none gives an empty
	// text/plain body).
	HTML, Text string
	// Headers are custom headers, already validated by the caller (D18);
	// Build still refuses CR, LF and NUL and the names it writes itself.
	Headers map[string]string
	// Attachments with Disposition "inline" go into a multipart/related
	// next to the HTML, with Content-ID <CID>; the others into the
	// outermost multipart/mixed.
	Attachments []carteiro.Attachment
}

// builtHeaders are the names Build writes itself; a custom header may not
// repeat them (D18 lists them as reserved; checking again here keeps a
// second From or Content-Type out whatever the caller did).
var builtHeaders = []string{
	"from", "to", "cc", "bcc", "subject", "date", "message-id",
	"mime-version", "dkim-signature", "return-path",
}

// Build renders m as an RFC 5322 message with MIME structure: text/plain or
// text/html alone; multipart/alternative (text first) when both; wrapped in
// multipart/related when there are inline attachments for the HTML; wrapped
// in multipart/mixed when there are other attachments. Lines end in CRLF,
// none is longer than 998 octets, and no bare CR or LF is emitted: bodies
// are quoted-printable (line breaks normalised), attachments base64.
// Anything that would end a header early (CR, LF, NUL) is an error wrapping
// ErrInvalidMessage.
func Build(m *Message) ([]byte, error) {
	body, err := m.mimeTree()
	if err != nil {
		return nil, err
	}
	size := len(m.Text) + len(m.HTML) + 2048
	for _, a := range m.Attachments {
		size += len(a.Content)*4/3 + 256
	}
	var b bytes.Buffer
	b.Grow(size)
	if err := m.writeHeaders(&b); err != nil {
		return nil, err
	}
	if err := body.writeHeaders(&b); err != nil {
		return nil, err
	}
	b.WriteString("\r\n")
	if err := body.writeBody(&b); err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	return b.Bytes(), nil
}

// writeHeaders writes the message headers that precede the MIME headers.
func (m *Message) writeHeaders(b *bytes.Buffer) error {
	if m.MessageID == "" {
		return invalidf("message id is required")
	}
	if strings.ContainsAny(m.MessageID, "<> \t") || hasControl(m.MessageID) {
		return invalidf("message id %q has angle brackets, spaces or control characters", m.MessageID)
	}
	from, err := formatAddress("from", m.From)
	if err != nil {
		return err
	}
	to, err := formatAddressList("to", m.To)
	if err != nil {
		return err
	}
	if len(m.To) == 0 {
		to = "undisclosed-recipients:;"
	}
	cc, err := formatAddressList("cc", m.Cc)
	if err != nil {
		return err
	}
	replyTo, err := formatAddressList("reply-to", m.ReplyTo)
	if err != nil {
		return err
	}
	if err := checkValue("subject", m.Subject); err != nil {
		return err
	}
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}

	fields := [][2]string{
		{"From", from},
		{"To", to},
		{"Cc", cc},
		{"Reply-To", replyTo},
		{"Subject", encodeUnstructured(m.Subject)},
		{"Date", date.Format(time.RFC1123Z)},
		{"Message-ID", "<" + m.MessageID + ">"},
		{"MIME-Version", "1.0"},
	}
	custom, err := m.customHeaders()
	if err != nil {
		return err
	}
	for _, f := range append(fields, custom...) {
		if f[1] == "" && f[0] != "Subject" {
			continue // an absent Cc or Reply-To
		}
		if err := writeHeader(b, f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

// customHeaders validates m.Headers and returns them sorted by name, so the
// output is deterministic.
func (m *Message) customHeaders() ([][2]string, error) {
	names := slices.Sorted(maps.Keys(m.Headers))
	out := make([][2]string, 0, len(names))
	for _, name := range names {
		if err := checkHeaderName(name); err != nil {
			return nil, err
		}
		lower := strings.ToLower(name)
		if slices.Contains(builtHeaders, lower) || strings.HasPrefix(lower, "content-") ||
			(lower == "reply-to" && len(m.ReplyTo) > 0) {
			return nil, invalidf("header %s is reserved", name)
		}
		value := m.Headers[name]
		if err := checkValue("header "+name, value); err != nil {
			return nil, err
		}
		// Custom headers may be structured (List-Unsubscribe), so plain
		// ASCII is kept verbatim; a value too long to fold is then an error
		// from writeHeader rather than a silently re-encoded header.
		// The API checks the same encoding and folding (D66,
		// carteiro.HeaderFieldFits), so a header it accepted builds.
		value = carteiro.EncodeHeaderValue(value)
		out = append(out, [2]string{name, value})
	}
	return out, nil
}

// mimeTree arranges the bodies and attachments as described on Build.
func (m *Message) mimeTree() (*mimePart, error) {
	boundaries, err := newBoundaries()
	if err != nil {
		return nil, err
	}
	var inline, attached []*mimePart
	for i := range m.Attachments {
		a := &m.Attachments[i]
		part, err := attachmentPart(a, i)
		if err != nil {
			return nil, err
		}
		// Inline images only make sense next to HTML; without it they are
		// ordinary attachments (still with their Content-ID).
		if strings.EqualFold(a.Disposition, "inline") && m.HTML != "" {
			inline = append(inline, part)
		} else {
			attached = append(attached, part)
		}
	}

	var root *mimePart
	switch {
	case m.HTML != "" && m.Text != "":
		root = multipartOf("alternative", boundaries[0], "",
			textPart("text/plain", m.Text), textPart("text/html", m.HTML))
	case m.HTML != "":
		root = textPart("text/html", m.HTML)
	default:
		root = textPart("text/plain", m.Text)
	}
	if len(inline) > 0 {
		rootType, _, _ := strings.Cut(root.contentType, ";")
		root = multipartOf("related", boundaries[1], `type="`+rootType+`"`, append([]*mimePart{root}, inline...)...)
	}
	if len(attached) > 0 {
		root = multipartOf("mixed", boundaries[2], "", append([]*mimePart{root}, attached...)...)
	}
	return root, nil
}

// newBoundaries returns one boundary per nesting level. Each starts with
// "=_", which can occur neither in quoted-printable (where '=' is always
// followed by hex or a line break) nor in base64, so no body can contain a
// delimiter; all have the same length and differ in their last character,
// so none is a prefix of another.
func newBoundaries() ([3]string, error) {
	var random [12]byte
	if _, err := rand.Read(random[:]); err != nil {
		return [3]string{}, fmt.Errorf("mta: boundary: %w", err)
	}
	base := "=_carteiro_" + hex.EncodeToString(random[:]) + "_"
	return [3]string{base + "a", base + "r", base + "m"}, nil
}
