// Package mimeparse reads a received message (D75) into the fields the API
// and the email.received webhook show: addresses, subject, threading ids,
// the text and html bodies and the attachments. It is lenient: mail from
// the Internet is often malformed, and whatever cannot be read is left
// empty, since the raw message is always kept and served as received.
package mimeparse

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode non-UTF-8 parts and headers
	"github.com/emersion/go-message/mail"
)

// maxParts bounds the MIME leaves looked at, so a message of a million
// empty parts costs no more than reading it.
const maxParts = 1000

// Address is one mailbox of a header.
type Address struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
}

// String is the address as people read it: the display name in UTF-8
// (quoted when it holds specials), then the address in angle brackets.
func (a Address) String() string {
	if a.Name == "" {
		return a.Address
	}
	name := a.Name
	if strings.ContainsAny(name, `()<>[]:;@\,."`) {
		name = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
	}
	return name + " <" + a.Address + ">"
}

// Attachment describes one attachment; its bytes are read from the raw
// message again when asked for (Open).
type Attachment struct {
	// ID names it within its message: its position among the message's
	// attachments, from 1, as text.
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	// ContentID is set for inline parts (an HTML body's cid: images).
	ContentID string `json:"contentId,omitempty"`
	Size      int64  `json:"size"`
}

// Message is what Parse reads.
type Message struct {
	From        []Address    `json:"from"`
	To          []Address    `json:"to"`
	Cc          []Address    `json:"cc"`
	ReplyTo     []Address    `json:"replyTo"`
	Subject     string       `json:"subject"`
	MessageID   string       `json:"messageId"`
	InReplyTo   []string     `json:"inReplyTo"`
	References  []string     `json:"references"`
	Text        string       `json:"text"`
	HTML        string       `json:"html"`
	Attachments []Attachment `json:"attachments"`
	// Problems lists what could not be read (a bad header, an unknown
	// charset, a broken part); the message is kept all the same.
	Problems []string `json:"problems,omitempty"`
}

// Parse reads raw. It never fails: a message that is not MIME at all gives
// a Message with empty fields and a problem.
func Parse(raw []byte) *Message {
	m := &Message{From: []Address{}, To: []Address{}, Cc: []Address{}, ReplyTo: []Address{},
		InReplyTo: []string{}, References: []string{}, Attachments: []Attachment{}}
	entity, err := message.Read(bytes.NewReader(raw))
	if entity == nil {
		m.problem("header: " + errString(err))
		return m
	}
	if err != nil {
		m.problem("body: " + errString(err))
	}
	h := mail.Header{Header: entity.Header}
	m.From = m.addresses(h, "From")
	m.To = m.addresses(h, "To")
	m.Cc = m.addresses(h, "Cc")
	m.ReplyTo = m.addresses(h, "Reply-To")
	if subject, err := h.Subject(); err == nil {
		m.Subject = subject
	} else {
		m.Subject = h.Get("Subject")
		m.problem("Subject: " + errString(err))
	}
	m.MessageID, _ = h.MessageID()
	m.InReplyTo = msgIDs(h, "In-Reply-To")
	m.References = msgIDs(h, "References")
	m.readParts(entity)
	return m
}

// addresses reads an address header; an unreadable one is kept as one
// address holding the header's text, so nothing shown is invented.
func (m *Message) addresses(h mail.Header, key string) []Address {
	out := []Address{}
	if !h.Has(key) {
		return out
	}
	list, err := h.AddressList(key)
	if err != nil {
		m.problem(key + ": " + errString(err))
		if v := strings.TrimSpace(h.Get(key)); v != "" {
			out = append(out, Address{Address: v})
		}
		return out
	}
	for _, a := range list {
		out = append(out, Address{Name: a.Name, Address: a.Address})
	}
	return out
}

// msgIDs reads In-Reply-To or References; broken ones give what can be
// read by splitting on angle brackets.
func msgIDs(h mail.Header, key string) []string {
	ids, err := h.MsgIDList(key)
	if err == nil {
		if ids == nil {
			return []string{}
		}
		return ids
	}
	out := []string{}
	for _, f := range strings.FieldsFunc(h.Get(key), func(r rune) bool { return r == '<' || r == '>' || r == ' ' || r == ',' }) {
		if strings.Contains(f, "@") {
			out = append(out, f)
		}
	}
	return out
}

func (m *Message) problem(p string) { m.Problems = append(m.Problems, p) }

// readParts walks the MIME tree: the first text/plain and text/html leaves
// that are not attachments are the bodies; every other leaf is an
// attachment (inline when it has a Content-ID).
func (m *Message) readParts(entity *message.Entity) {
	gotText, gotHTML := false, false
	err := walkLeaves(entity, func(leaf leafPart) error {
		if leaf.isBody && leaf.mediaType == "text/plain" && !gotText {
			gotText = true
			body, err := io.ReadAll(leaf.entity.Body)
			m.Text = string(body)
			return readErr(err)
		}
		if leaf.isBody && leaf.mediaType == "text/html" && !gotHTML {
			gotHTML = true
			body, err := io.ReadAll(leaf.entity.Body)
			m.HTML = string(body)
			return readErr(err)
		}
		size, err := io.Copy(io.Discard, leaf.entity.Body)
		m.Attachments = append(m.Attachments, leaf.attachment(len(m.Attachments)+1, size))
		return readErr(err)
	})
	if err != nil {
		m.problem("parts: " + errString(err))
	}
}

// readErr keeps a part's read error unless it is only an unknown charset
// or transfer encoding, which leaves the bytes as they were.
func readErr(err error) error {
	if err == nil || message.IsUnknownCharset(err) || message.IsUnknownEncoding(err) {
		return nil
	}
	return err
}

func errString(err error) string {
	if err == nil {
		return "unreadable"
	}
	return err.Error()
}

// errStop ends a walk early.
var errStop = errors.New("stop")
