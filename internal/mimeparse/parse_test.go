package mimeparse

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readCorpus(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestCorpusOfRealWorldShapes parses replies, inline images, invitations,
// legacy charsets and a broken message as mail clients write them.
func TestCorpusOfRealWorldShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file        string
		from        string
		subject     string
		text, html  string // substrings
		inReplyTo   string
		attachments []string // filename/contentType
		problems    bool
	}{
		{file: "gmail_reply.eml", from: "ana.souza@gmail.example", subject: "Re: Seu pedido foi enviado",
			text: "o pacote ainda não chegou", html: `<blockquote class="gmail_quote"`,
			inReplyTo: "0190f1c2-7a3b-7cde-8f01-23456789abcd@shop.example"},
		{file: "outlook_reply.eml", from: "carlos@outlook.example", subject: "RE: Fatura de novembro",
			text: "a fatura está com o valor errado", html: "fatura est\u00e1 com o valor errado",
			inReplyTo: "0190f1c2-aaaa-7cde-8f01-23456789abcd@shop.example"},
		{file: "apple_inline_image.eml", from: "bia@icloud.example", subject: "Foto do produto com defeito",
			text: "Veja a foto abaixo.", html: `src="cid:F1E2D3C4-B5A6-4978-8695-A4B3C2D1E0F9"`,
			attachments: []string{"foto.png/image/png"}},
		{file: "calendar_invite.eml", from: "diego@calendar.example", subject: "Convite: Reunião de alinhamento @ seg 30 de nov de 2026 10:00 - 11:00 (BRT)",
			text: "Você foi convidado", attachments: []string{"/text/calendar; charset=utf-8", "invite.ics/application/ics"}},
		{file: "iso8859_1.eml", from: "jose@latin.example", subject: "Reclamação sobre a entrega",
			text: "A entrega não chegou até hoje, é a terceira vez."},
		{file: "malformed.eml", from: "broken <<<@@", subject: "=?UTF-8?B?invalid-base64!!?=", problems: true,
			attachments: []string{"/application/octet-stream"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw := readCorpus(t, c.file)
			before := bytes.Clone(raw)
			m := Parse(raw)
			if !bytes.Equal(raw, before) {
				t.Fatal("Parse changed the raw message")
			}
			if len(m.From) == 0 || m.From[0].Address != c.from {
				t.Errorf("from %+v, want %q", m.From, c.from)
			}
			if m.Subject != c.subject {
				t.Errorf("subject %q, want %q", m.Subject, c.subject)
			}
			if !strings.Contains(m.Text, c.text) {
				t.Errorf("text %q lacks %q", m.Text, c.text)
			}
			if !strings.Contains(m.HTML, c.html) {
				t.Errorf("html %q lacks %q", m.HTML, c.html)
			}
			if c.inReplyTo != "" && (len(m.InReplyTo) != 1 || m.InReplyTo[0] != c.inReplyTo) {
				t.Errorf("in-reply-to %v, want %q", m.InReplyTo, c.inReplyTo)
			}
			var atts []string
			for _, a := range m.Attachments {
				atts = append(atts, a.Filename+"/"+a.ContentType)
				_, content, err := Open(raw, a.ID)
				if err != nil || int64(len(content)) != a.Size {
					t.Errorf("Open(%s): %d bytes, %v; want %d", a.ID, len(content), err, a.Size)
				}
			}
			if strings.Join(atts, ",") != strings.Join(c.attachments, ",") {
				t.Errorf("attachments %v, want %v", atts, c.attachments)
			}
			if (len(m.Problems) > 0) != c.problems {
				t.Errorf("problems %v, want some: %v", m.Problems, c.problems)
			}
		})
	}
}

// TestInlineImageKeepsItsBytes: the PNG served back is the one encoded.
func TestInlineImageKeepsItsBytes(t *testing.T) {
	t.Parallel()
	raw := readCorpus(t, "apple_inline_image.eml")
	att, content, err := Open(raw, "1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(content, []byte("\x89PNG\r\n\x1a\n")) || att.ContentType != "image/png" {
		t.Errorf("inline image: %q %q", att.ContentType, content[:8])
	}
	if _, _, err := Open(raw, "2"); err != ErrNoAttachment {
		t.Errorf("Open of a missing attachment: %v, want ErrNoAttachment", err)
	}
}

// FuzzParseReceived: no input makes Parse or Open panic, and Parse's attachment
// ids are the ones Open finds, with the same sizes.
func FuzzParseReceived(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		if raw, err := os.ReadFile(filepath.Join("testdata", e.Name())); err == nil && strings.HasSuffix(e.Name(), ".eml") {
			f.Add(raw)
		}
	}
	f.Add([]byte("Subject: x\r\n\r\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := Parse(raw)
		for _, a := range m.Attachments {
			got, content, err := Open(raw, a.ID)
			if err != nil {
				t.Fatalf("Open(%s) after Parse listed it: %v", a.ID, err)
			}
			if got.Size != int64(len(content)) || got.Size != a.Size {
				t.Fatalf("attachment %s: Parse says %d bytes, Open %d", a.ID, a.Size, len(content))
			}
		}
	})
}
