package carteiro

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestValidateSubject(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc, in, reason string
	}{
		{desc: "empty", in: ""},
		{desc: "plain", in: "Your receipt"},
		{desc: "998 characters", in: strings.Repeat("x", 998)},
		{desc: "998 multibyte characters", in: strings.Repeat("ç", 998)},
		{desc: "999 characters", in: strings.Repeat("x", 999), reason: "too_long"},
		{desc: "LF", in: "Hi\nBcc: x@y.z", reason: "header_injection"},
		{desc: "CR", in: "Hi\r", reason: "header_injection"},
		{desc: "NUL", in: "Hi\x00", reason: "header_injection"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			assertInvalid(t, ValidateSubject(c.in), "subject", c.reason)
		})
	}
}

func TestValidateTags(t *testing.T) {
	t.Parallel()
	many := func(n int) []Tag {
		tags := make([]Tag, n)
		for i := range tags {
			tags[i] = Tag{Name: "t" + strconv.Itoa(i), Value: "v"}
		}
		return tags
	}
	cases := []struct {
		desc          string
		tags          []Tag
		field, reason string
	}{
		{desc: "none", tags: nil},
		{desc: "valid", tags: []Tag{{"category", "password_reset"}, {"Tenant-ID", "Acme-42"}}},
		{desc: "repeated name", tags: []Tag{{"env", "a"}, {"env", "b"}}},
		{desc: "20 tags", tags: many(20)},
		{desc: "21 tags", tags: many(21), field: "tags", reason: "too_many"},
		{desc: "256 characters", tags: []Tag{{strings.Repeat("n", 256), strings.Repeat("v", 256)}}},
		{desc: "empty name", tags: []Tag{{"a", "b"}, {"", "b"}}, field: "tags[1].name", reason: "empty"},
		{desc: "empty value", tags: []Tag{{"a", ""}}, field: "tags[0].value", reason: "empty"},
		{desc: "long name", tags: []Tag{{strings.Repeat("n", 257), "v"}}, field: "tags[0].name", reason: "too_long"},
		{desc: "long value", tags: []Tag{{"n", strings.Repeat("v", 257)}}, field: "tags[0].value", reason: "too_long"},
		{desc: "space in name", tags: []Tag{{"a b", "v"}}, field: "tags[0].name", reason: "invalid_value"},
		{desc: "colon in value", tags: []Tag{{"a", "b:c"}}, field: "tags[0].value", reason: "invalid_value"},
		{desc: "dot in value", tags: []Tag{{"a", "b.c"}}, field: "tags[0].value", reason: "invalid_value"},
		{desc: "non-ASCII letter", tags: []Tag{{"ação", "v"}}, field: "tags[0].name", reason: "invalid_value"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			assertInvalid(t, ValidateTags(c.tags), c.field, c.reason)
		})
	}
}

func TestIsReservedHeader(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"From", "to", "CC", "bcc", "Subject", "date", "Message-Id", "dkim-signature",
		"Return-Path", "mime-version", "Content-Type", "content-transfer-encoding", "Content-",
		// D66
		"Sender", "received", "RECEIVED", "Resent-From", "resent-message-id", "ARC-Seal",
		"arc-authentication-results", "Authentication-Results", "feedback-id",
	} {
		if !IsReservedHeader(name) {
			t.Errorf("%q should be reserved", name)
		}
	}
	for _, name := range []string{"X-Campaign", "Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post", "Content",
		"X-Content-Type", "Froms", "X-Received", "Resent", "ARC", "Senders"} {
		if IsReservedHeader(name) {
			t.Errorf("%q should not be reserved", name)
		}
	}
}

func TestValidateHeaders(t *testing.T) {
	t.Parallel()
	many := func(n int) map[string]string {
		h := make(map[string]string, n)
		for i := range n {
			h["X-H"+strconv.Itoa(i)] = "v"
		}
		return h
	}
	cases := []struct {
		desc          string
		headers       map[string]string
		field, reason string
	}{
		{desc: "none", headers: nil},
		{desc: "valid", headers: map[string]string{"X-Campaign": "spring", "List-Unsubscribe": "<mailto:u@example.com>", "X-Empty": ""}},
		{desc: "non-ASCII value", headers: map[string]string{"X-Note": "olá"}},
		{desc: "50 headers", headers: many(50)},
		{desc: "51 headers", headers: many(51), field: "headers", reason: "too_many"},
		{desc: "100-character name", headers: map[string]string{"X-" + strings.Repeat("n", 98): "v"}},
		{desc: "101-character name", headers: map[string]string{"X-" + strings.Repeat("n", 99): "v"}, field: "headers.X-" + strings.Repeat("n", 99), reason: "too_long"},
		// "X-Long: " and 990 octets make a 998-octet line, the most RFC
		// 5322 allows (D66); a longer run without spaces cannot fold.
		{desc: "990-octet word", headers: map[string]string{"X-Long": strings.Repeat("v", 990)}},
		{desc: "991-octet word, D66", headers: map[string]string{"X-Long": strings.Repeat("v", 991)}, field: "headers.X-Long", reason: "too_long"},
		{desc: "998 characters in words", headers: map[string]string{"X-Long": strings.Repeat("word ", 199) + "abc"}},
		{desc: "990 octets under a long name, D66", headers: map[string]string{"X-" + strings.Repeat("n", 90): strings.Repeat("v", 990)}, field: "headers.X-" + strings.Repeat("n", 90), reason: "too_long"},
		{desc: "non-ASCII encoded words fold", headers: map[string]string{"X-Note": strings.Repeat("ã", 998)}},
		{desc: "999-character value", headers: map[string]string{"X-Long": strings.Repeat("v", 999)}, field: "headers.X-Long", reason: "too_long"},
		{desc: "space in name", headers: map[string]string{"X Foo": "v"}, field: "headers.X Foo", reason: "invalid_value"},
		{desc: "colon in name", headers: map[string]string{"X-Foo:": "v"}, field: "headers.X-Foo:", reason: "invalid_value"},
		{desc: "non-ASCII name", headers: map[string]string{"X-Ação": "v"}, field: "headers.X-Ação", reason: "invalid_value"},
		{desc: "empty name", headers: map[string]string{"": "v"}, field: "headers.", reason: "invalid_value"},
		{desc: "reserved", headers: map[string]string{"Bcc": "x@y.z"}, field: "headers.Bcc", reason: "reserved_header"},
		{desc: "reserved any case", headers: map[string]string{"message-id": "<x@y>"}, field: "headers.message-id", reason: "reserved_header"},
		{desc: "reserved Content-*", headers: map[string]string{"Content-Disposition": "inline"}, field: "headers.Content-Disposition", reason: "reserved_header"},
		{desc: "same name twice", headers: map[string]string{"X-Foo": "a", "x-foo": "b"}, field: "headers.x-foo", reason: "duplicate"},
		{desc: "LF in value", headers: map[string]string{"X-Foo": "a\nBcc: x@y.z"}, field: "headers.X-Foo", reason: "header_injection"},
		{desc: "CR in value", headers: map[string]string{"X-Foo": "a\r"}, field: "headers.X-Foo", reason: "header_injection"},
		{desc: "NUL in value", headers: map[string]string{"X-Foo": "\x00"}, field: "headers.X-Foo", reason: "header_injection"},
		{desc: "first in sorted order", headers: map[string]string{"X-Zed": "\n", "X-Abc": "\n", "X-Mid": "\n"}, field: "headers.X-Abc", reason: "header_injection"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			assertInvalid(t, ValidateHeaders(c.headers), c.field, c.reason)
		})
	}
}

// validAttachment returns an attachment input that passes every rule.
func validAttachment(content []byte) AttachmentInput {
	return AttachmentInput{
		Filename:    "report.pdf",
		Content:     base64.StdEncoding.EncodeToString(content),
		ContentType: "application/pdf",
		Disposition: "attachment",
	}
}

func TestDecodeAttachmentsAccepts(t *testing.T) {
	t.Parallel()
	pdf := []byte("%PDF-1.7 example \x00\xff")
	logo := []byte{0x89, 'P', 'N', 'G', 1, 2, 3}
	wrapped := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("line"), 40))
	wrapped = wrapped[:76] + "\r\n" + wrapped[76:152] + "\n" + wrapped[152:]
	in := []AttachmentInput{
		validAttachment(pdf),
		{Filename: "logo.png", Content: base64.RawStdEncoding.EncodeToString(logo), ContentType: "IMAGE/PNG", Disposition: "inline", CID: "logo@acme.example", HasCID: true},
		{Filename: "notes.txt", Content: wrapped, ContentType: `text/plain; charset="UTF-8"`, Disposition: "attachment", CID: "notes-1", HasCID: true},
		{Filename: "relatório final.csv", Content: "AAEC", ContentType: "text/csv", Disposition: "attachment"},
	}
	out, err := DecodeAttachments(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Attachment{
		{Filename: "report.pdf", Content: pdf, ContentType: "application/pdf", Disposition: "attachment"},
		{Filename: "logo.png", Content: logo, ContentType: "image/png", Disposition: "inline", CID: "logo@acme.example"},
		{Filename: "notes.txt", Content: bytes.Repeat([]byte("line"), 40), ContentType: "text/plain; charset=UTF-8", Disposition: "attachment", CID: "notes-1"},
		{Filename: "relatório final.csv", Content: []byte{0, 1, 2}, ContentType: "text/csv", Disposition: "attachment"},
	}
	if len(out) != len(want) {
		t.Fatalf("got %d attachments, want %d", len(out), len(want))
	}
	for i := range want {
		g, w := out[i], want[i]
		if g.Filename != w.Filename || !bytes.Equal(g.Content, w.Content) || g.ContentType != w.ContentType ||
			g.Disposition != w.Disposition || g.CID != w.CID {
			t.Errorf("attachment %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestDecodeAttachmentsSizeLimit(t *testing.T) {
	t.Parallel()
	half := make([]byte, MaxAttachmentsBytes/2)
	exact := []AttachmentInput{validAttachment(half), validAttachment(half)}
	if _, err := DecodeAttachments(exact); err != nil {
		t.Fatalf("exactly 25,000,000 bytes should pass: %v", err)
	}
	over := []AttachmentInput{validAttachment(half), validAttachment(append(half, 0))}
	_, err := DecodeAttachments(over)
	assertInvalid(t, err, "attachments", "too_large")
}

func TestDecodeAttachmentsRefuses(t *testing.T) {
	t.Parallel()
	ok := validAttachment([]byte("hello"))
	with := func(change func(*AttachmentInput)) AttachmentInput {
		a := ok
		change(&a)
		return a
	}
	inline := func(cid string) AttachmentInput {
		return with(func(a *AttachmentInput) { a.Disposition, a.CID, a.HasCID = "inline", cid, true })
	}
	cases := []struct {
		desc          string
		in            []AttachmentInput
		field, reason string
	}{
		{desc: "ten", in: []AttachmentInput{ok, ok, ok, ok, ok, ok, ok, ok, ok, ok}},
		{desc: "eleven", in: []AttachmentInput{ok, ok, ok, ok, ok, ok, ok, ok, ok, ok, ok}, field: "attachments", reason: "too_many"},

		{desc: "filename empty", in: []AttachmentInput{ok, with(func(a *AttachmentInput) { a.Filename = "" })}, field: "attachments[1].filename", reason: "empty"},
		{desc: "filename 255", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = strings.Repeat("é", 251) + ".pdf" })}},
		{desc: "filename 256", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = strings.Repeat("é", 252) + ".pdf" })}, field: "attachments[0].filename", reason: "too_long"},
		{desc: "filename LF", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = "a\n.pdf" })}, field: "attachments[0].filename", reason: "header_injection"},
		{desc: "filename NUL", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = "a.pdf\x00.exe" })}, field: "attachments[0].filename", reason: "header_injection"},
		{desc: "filename slash", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = "../etc/passwd" })}, field: "attachments[0].filename", reason: "invalid_value"},
		{desc: "filename backslash", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = `C:\x.pdf` })}, field: "attachments[0].filename", reason: "invalid_value"},
		{desc: "filename dotdot", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = ".." })}, field: "attachments[0].filename", reason: "invalid_value"},
		{desc: "filename tab", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Filename = "a\tb.pdf" })}, field: "attachments[0].filename", reason: "invalid_value"},

		{desc: "content empty", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Content = "" })}, field: "attachments[0].content", reason: "empty"},
		{desc: "content not base64", in: []AttachmentInput{ok, ok, with(func(a *AttachmentInput) { a.Content = "not base64!" })}, field: "attachments[2].content", reason: "invalid_base64"},
		{desc: "content with spaces", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Content = "aGVs bG8=" })}, field: "attachments[0].content", reason: "invalid_base64"},
		{desc: "content URL-safe alphabet", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Content = "-_-_" })}, field: "attachments[0].content", reason: "invalid_base64"},
		{desc: "content bad padding", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Content = "aGVsbG8==" })}, field: "attachments[0].content", reason: "invalid_base64"},
		{desc: "content trailing bits", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Content = "aGVsbG9=" })}, field: "attachments[0].content", reason: "invalid_base64"},
		{desc: "content data URL", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Content = "data:text/plain;base64,aGVsbG8=" })}, field: "attachments[0].content", reason: "invalid_base64"},

		{desc: "contentType empty", in: []AttachmentInput{with(func(a *AttachmentInput) { a.ContentType = "" })}, field: "attachments[0].contentType", reason: "empty"},
		{desc: "contentType no subtype", in: []AttachmentInput{with(func(a *AttachmentInput) { a.ContentType = "pdf" })}, field: "attachments[0].contentType", reason: "invalid_value"},
		{desc: "contentType empty subtype", in: []AttachmentInput{with(func(a *AttachmentInput) { a.ContentType = "application/" })}, field: "attachments[0].contentType", reason: "invalid_value"},
		{desc: "contentType bad parameter", in: []AttachmentInput{with(func(a *AttachmentInput) { a.ContentType = "text/plain; charset" })}, field: "attachments[0].contentType", reason: "invalid_value"},
		{desc: "contentType injection", in: []AttachmentInput{with(func(a *AttachmentInput) { a.ContentType = "text/plain\r\nBcc: x@y.z" })}, field: "attachments[0].contentType", reason: "header_injection"},

		{desc: "disposition empty", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Disposition = "" })}, field: "attachments[0].disposition", reason: "empty"},
		{desc: "disposition unknown", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Disposition = "embedded" })}, field: "attachments[0].disposition", reason: "invalid_value"},
		{desc: "disposition uppercase", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Disposition = "Inline" })}, field: "attachments[0].disposition", reason: "invalid_value"},

		{desc: "inline without cid", in: []AttachmentInput{with(func(a *AttachmentInput) { a.Disposition = "inline" })}, field: "attachments[0].cid", reason: "required"},
		{desc: "inline with empty cid", in: []AttachmentInput{inline("")}, field: "attachments[0].cid", reason: "empty"},
		{desc: "attachment with empty cid", in: []AttachmentInput{with(func(a *AttachmentInput) { a.HasCID = true })}, field: "attachments[0].cid", reason: "empty"},
		{desc: "cid in angle brackets", in: []AttachmentInput{inline("<logo>")}, field: "attachments[0].cid", reason: "invalid_value"},
		{desc: "cid with space", in: []AttachmentInput{inline("my logo")}, field: "attachments[0].cid", reason: "invalid_value"},
		{desc: "cid 255", in: []AttachmentInput{inline(strings.Repeat("c", 255))}},
		{desc: "cid 256", in: []AttachmentInput{inline(strings.Repeat("c", 256))}, field: "attachments[0].cid", reason: "invalid_value"},
		{desc: "cid duplicate", in: []AttachmentInput{inline("logo"), ok, inline("logo")}, field: "attachments[2].cid", reason: "duplicate"},
		{desc: "cid duplicate ignoring case", in: []AttachmentInput{inline("Logo"), inline("logo")}, field: "attachments[1].cid", reason: "duplicate"},
		{desc: "cid duplicate across dispositions", in: []AttachmentInput{with(func(a *AttachmentInput) { a.CID, a.HasCID = "x", true }), inline("x")}, field: "attachments[1].cid", reason: "duplicate"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			out, err := DecodeAttachments(c.in)
			assertInvalid(t, err, c.field, c.reason)
			if c.reason == "" && len(out) != len(c.in) {
				t.Fatalf("got %d attachments, want %d", len(out), len(c.in))
			}
			if c.reason != "" && out != nil {
				t.Fatalf("a refused list must return no attachments, got %d", len(out))
			}
		})
	}
}

func TestResolveSchedule(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	saoPaulo := time.FixedZone("BRT", -3*3600)
	cases := []struct {
		desc   string
		in     *time.Time
		want   *time.Time
		reason string
	}{
		{desc: "absent", in: nil, want: nil},
		{desc: "past", in: at(-time.Hour), want: nil},
		{desc: "now", in: at(0), want: nil},
		{desc: "sub-microsecond ahead counts as now", in: at(500 * time.Nanosecond), want: nil},
		{desc: "one minute ahead", in: at(time.Minute), want: at(time.Minute)},
		{desc: "exactly 30 days", in: at(30 * 24 * time.Hour), want: at(30 * 24 * time.Hour)},
		{desc: "30 days and a microsecond", in: at(30*24*time.Hour + time.Microsecond), reason: "too_far_ahead"},
		{desc: "a year", in: at(365 * 24 * time.Hour), reason: "too_far_ahead"},
		{desc: "truncated to microseconds", in: at(time.Hour + 1234567*time.Nanosecond), want: at(time.Hour + 1234*time.Microsecond)},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			got, err := ResolveSchedule(now, c.in)
			assertInvalid(t, err, "scheduledAt", c.reason)
			switch {
			case c.want == nil && got != nil:
				t.Fatalf("got %v, want nil (send now)", *got)
			case c.want != nil && (got == nil || !got.Equal(*c.want) || got.Location() != time.UTC):
				t.Fatalf("got %v, want %v in UTC", got, *c.want)
			}
		})
	}
	t.Run("other zone becomes UTC", func(t *testing.T) {
		t.Parallel()
		local := now.Add(2 * time.Hour).In(saoPaulo)
		got, err := ResolveSchedule(now, &local)
		if err != nil || got == nil || got.Location() != time.UTC || !got.Equal(local) {
			t.Fatalf("got %v, %v; want %v in UTC", got, err, local)
		}
	})
}

func TestValidateIdempotencyKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc, in, reason string
	}{
		{desc: "uuid", in: "5f1c1c3e-8d2a-4b7e-9a51-0c3f2d9e7b11"},
		{desc: "printable with space", in: "order 42 / retry"},
		{desc: "256 characters", in: strings.Repeat("k", 256)},
		{desc: "empty", in: "", reason: "empty"},
		{desc: "257 characters", in: strings.Repeat("k", 257), reason: "too_long"},
		{desc: "non-ASCII", in: "chave-única", reason: "invalid_value"},
		{desc: "long non-ASCII", in: strings.Repeat("ú", 200), reason: "invalid_value"},
		{desc: "tab", in: "a\tb", reason: "invalid_value"},
		{desc: "newline", in: "a\n", reason: "invalid_value"},
		{desc: "DEL", in: "a\x7f", reason: "invalid_value"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			assertInvalid(t, ValidateIdempotencyKey(c.in), "idempotencyKey", c.reason)
		})
	}
}

func TestCheckRecipientCount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		to, cc, bcc int
		reason      string
	}{
		{1, 0, 0, ""},
		{50, 0, 0, ""},
		{10, 20, 20, ""},
		{0, 0, 0, "required"},
		{0, 5, 5, "required"}, // cc and bcc alone are not enough
		{51, 0, 0, "too_many"},
		{1, 25, 25, "too_many"},
	}
	for _, c := range cases {
		err := CheckRecipientCount(c.to, c.cc, c.bcc)
		t.Run(strconv.Itoa(c.to)+"+"+strconv.Itoa(c.cc)+"+"+strconv.Itoa(c.bcc), func(t *testing.T) {
			assertInvalid(t, err, "to", c.reason)
		})
	}
}
