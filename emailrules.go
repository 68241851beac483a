package carteiro

import (
	"bytes"
	"encoding/base64"
	"mime"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of one email (D14, D18, D19, D21, D22, contract section 8).
const (
	MaxRecipients        = 50  // to + cc + bcc
	MaxSubjectLen        = 998 // characters
	MaxTags              = 20
	MaxTagLen            = 256 // characters, name and value alike
	MaxHeaders           = 50
	MaxHeaderNameLen     = 100
	MaxHeaderValueLen    = 998 // characters
	MaxAttachments       = 10
	MaxAttachmentsBytes  = 25_000_000 // decoded total: "25 MB" read as decimal megabytes
	MaxFilenameLen       = 255        // characters
	MaxCIDLen            = 255
	MaxScheduleAhead     = 30 * 24 * time.Hour
	MaxIdempotencyKeyLen = 256
)

// Attachment dispositions (2.2).
const (
	DispositionAttachment = "attachment"
	DispositionInline     = "inline" // embedded in the HTML, referenced by cid
)

// reservedHeaderWildcard ends a ReservedHeaders entry that is a prefix.
const reservedHeaderWildcard = "*"

// ReservedHeaders are the header names a request may not set (D18, D66):
// those the service writes itself, and those that vouch for a message's
// path or authentication (trace fields, ARC, Authentication-Results), which
// a receiver must be able to trust came from a relay, not from the sender.
// Matching is case-insensitive; an entry ending in "*" is a prefix
// ("Content-*" covers Content-Type and the rest). Treat it as read-only.
//
// List-Unsubscribe and List-Unsubscribe-Post are reserved on broadcasts
// only (D66), which write their own; transactional email may set them.
// Broadcasts take no custom headers, so they are not listed here.
var ReservedHeaders = []string{
	"From", "To", "Cc", "Bcc", "Subject", "Date", "Message-ID",
	"DKIM-Signature", "Return-Path", "MIME-Version", "Content-*",
	"Sender", "Received", "Resent-*", "ARC-*", "Authentication-Results", "Feedback-ID",
}

// IsReservedHeader reports whether name is one of ReservedHeaders.
func IsReservedHeader(name string) bool {
	for _, r := range ReservedHeaders {
		if prefix, ok := strings.CutSuffix(r, reservedHeaderWildcard); ok {
			if len(name) >= len(prefix) && strings.EqualFold(name[:len(prefix)], prefix) {
				return true
			}
		} else if strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}

// ValidateSubject checks the subject line (D14): at most 998 characters and
// no CR, LF or NUL (D12). An empty subject passes; whether one is required
// depends on the template (D20) and is the caller's decision.
func ValidateSubject(s string) error {
	switch {
	case hasLineBreakOrNUL(s):
		return Invalid("subject", "header_injection")
	case utf8.RuneCountInString(s) > MaxSubjectLen:
		return Invalid("subject", "too_long")
	}
	return nil
}

// ValidateTags checks an email's tags (D14): at most 20 ("tags",
// too_many); name and value each 1 to 256 ASCII letters, digits, "_" or "-"
// (empty, too_long, invalid_value on "tags[i].name" or "tags[i].value").
// The value may not be empty, like the name (as in Resend's tags): a tag is
// a name:value pair and D28 filters by either. Repeated names are allowed.
// A missing name or value is the JSON layer's "required".
func ValidateTags(tags []Tag) error {
	if len(tags) > MaxTags {
		return Invalid("tags", "too_many")
	}
	for i, t := range tags {
		path := "tags[" + strconv.Itoa(i) + "]"
		if reason := tagPartProblem(t.Name); reason != "" {
			return Invalid(path+".name", reason)
		}
		if reason := tagPartProblem(t.Value); reason != "" {
			return Invalid(path+".value", reason)
		}
	}
	return nil
}

func tagPartProblem(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > MaxTagLen:
		return "too_long"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "invalid_value"
		}
	}
	return ""
}

// ValidateHeaders checks custom headers (D18), at most 50. Each name must be
// an RFC 5322 field name (printable ASCII except ":", so no spaces) of at
// most 100 characters, not reserved (D66) and not repeated in another case;
// each value at most 998 characters without CR, LF or NUL (D12), and the
// whole field, name and encoding included, must fold into lines of at most
// 998 octets (D66), so that it is refused here rather than failing the
// email at send time. Names are checked in sorted order so the field
// reported, "headers.<Name>", is stable.
//
// Reasons: too_many (field "headers"), invalid_value, too_long,
// reserved_header, duplicate, header_injection.
func ValidateHeaders(h map[string]string) error {
	if len(h) > MaxHeaders {
		return Invalid("headers", "too_many")
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		field := "headers." + name
		switch {
		case len(name) > MaxHeaderNameLen:
			return Invalid(field, "too_long")
		case !isFieldName(name):
			return Invalid(field, "invalid_value")
		case IsReservedHeader(name):
			return Invalid(field, "reserved_header")
		case seen[strings.ToLower(name)]:
			return Invalid(field, "duplicate")
		}
		seen[strings.ToLower(name)] = true
		value := h[name]
		switch {
		case hasLineBreakOrNUL(value):
			return Invalid(field, "header_injection")
		case utf8.RuneCountInString(value) > MaxHeaderValueLen,
			!HeaderFieldFits(name, EncodeHeaderValue(value)):
			return Invalid(field, "too_long")
		}
	}
	return nil
}

// isFieldName reports RFC 5322 ftext: one or more of %d33-57 / %d59-126.
func isFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 33 || c > 126 || c == ':' {
			return false
		}
	}
	return true
}

// AttachmentInput is one attachment as the request carries it (2.2), before
// decoding. HasCID tells a missing cid from an empty one.
type AttachmentInput struct {
	Filename string
	Content  string // Base64
	// Decoded, when not nil, is the content already decoded by the caller,
	// who leaves Content empty: the HTTP layer decodes it straight from the
	// request body, so the Base64 text is never held as well (D60).
	// ContentReason is then that decoding's finding, "empty" or
	// "invalid_base64", reported as Content's would be.
	Decoded       []byte
	ContentReason string
	ContentType   string
	Disposition   string
	CID           string
	HasCID        bool
}

// DecodeAttachments validates and decodes attachments (2.2, D19). The
// first problem in item order is reported with the item's path, such as
// "attachments[1].content". Filename, content, contentType and disposition
// are required by the contract; their absence is for the JSON layer to
// report (required), so an empty string here is reason empty.
//
//   - more than 10 items: "attachments", too_many;
//   - filename: 1 to 255 characters (empty, too_long); CR, LF or NUL is
//     header_injection; "/", "\", other control characters, "." and ".."
//     are invalid_value;
//   - content: not empty (so no zero-byte files); standard
//     Base64 alphabet, padding optional, CR and LF ignored (MIME-style line
//     wrapping), any other character, including spaces and the URL-safe
//     alphabet, is invalid_base64; non-zero trailing bits are refused too;
//   - decoded total over 25,000,000 bytes (the contract's 25 MB, read as
//     decimal): "attachments", too_large;
//   - contentType: not empty; CR, LF or NUL is header_injection; a
//     type/subtype media type with valid parameters (invalid_value); it is
//     returned in canonical form;
//   - disposition: not empty; "attachment" or "inline", lowercase
//     (invalid_value);
//   - cid: required when inline (missing is required, present but empty is
//     empty); allowed on any attachment; [A-Za-z0-9._@-], at most 255
//     (invalid_value); unique within the email, ignoring case (duplicate).
func DecodeAttachments(in []AttachmentInput) ([]Attachment, error) {
	if len(in) > MaxAttachments {
		return nil, Invalid("attachments", "too_many")
	}
	out := make([]Attachment, 0, len(in))
	cids := make(map[string]bool, len(in))
	total := 0
	for i, a := range in {
		path := "attachments[" + strconv.Itoa(i) + "]"
		if reason := filenameProblem(a.Filename); reason != "" {
			return nil, Invalid(path+".filename", reason)
		}
		content, reason := a.Decoded, a.ContentReason
		if content == nil && reason == "" {
			content, reason = decodeContent(a.Content)
		}
		if reason != "" {
			return nil, Invalid(path+".content", reason)
		}
		if total += len(content); total > MaxAttachmentsBytes {
			return nil, Invalid("attachments", "too_large")
		}
		contentType, reason := canonicalMediaType(a.ContentType)
		if reason != "" {
			return nil, Invalid(path+".contentType", reason)
		}
		switch a.Disposition {
		case DispositionAttachment, DispositionInline:
		case "":
			return nil, Invalid(path+".disposition", "empty")
		default:
			return nil, Invalid(path+".disposition", "invalid_value")
		}
		if reason := cidProblem(a, cids); reason != "" {
			return nil, Invalid(path+".cid", reason)
		}
		if a.CID != "" {
			cids[strings.ToLower(a.CID)] = true
		}
		out = append(out, Attachment{
			Filename:    a.Filename,
			Content:     content,
			ContentType: contentType,
			Disposition: a.Disposition,
			CID:         a.CID,
		})
	}
	return out, nil
}

func filenameProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case hasLineBreakOrNUL(name):
		return "header_injection"
	case utf8.RuneCountInString(name) > MaxFilenameLen:
		return "too_long"
	case !utf8.ValidString(name), hasControl(name), strings.ContainsAny(name, `/\`),
		name == ".", name == "..":
		return "invalid_value"
	}
	return ""
}

// decodeContent decodes an attachment's Base64 content, or says why not:
// empty or invalid_base64.
func decodeContent(s string) ([]byte, string) {
	return DecodeAttachmentContent([]byte(s))
}

// DecodeAttachmentContent is decodeContent for content still in the
// caller's buffer (b is only read): the decoded bytes are the one copy made.
func DecodeAttachmentContent(b []byte) ([]byte, string) {
	if len(b) == 0 {
		return nil, "empty"
	}
	out, ok := DecodeBase64(b)
	if !ok {
		return nil, "invalid_base64"
	}
	return out, ""
}

// DecodeBase64 decodes standard Base64, padded or not, ignoring the CR and
// LF of wrapped lines; non-zero trailing bits are refused. s is only read.
func DecodeBase64(s []byte) ([]byte, bool) {
	if bytes.ContainsAny(s, "\r\n") {
		s = bytes.ReplaceAll(bytes.ReplaceAll(s, []byte("\r"), nil), []byte("\n"), nil)
	}
	enc := base64.RawStdEncoding
	if bytes.HasSuffix(s, []byte("=")) {
		enc = base64.StdEncoding
	}
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Strict().Decode(out, s)
	if err != nil {
		return nil, false
	}
	return out[:n], true
}

// canonicalMediaType parses a MIME type and writes it back in canonical form
// (lowercase type, parameters quoted as needed), so nothing unchecked
// reaches the Content-Type header.
func canonicalMediaType(s string) (string, string) {
	switch {
	case s == "":
		return "", "empty"
	case hasLineBreakOrNUL(s):
		return "", "header_injection"
	}
	mediaType, params, err := mime.ParseMediaType(s)
	if err != nil {
		return "", "invalid_value"
	}
	typ, sub, ok := strings.Cut(mediaType, "/")
	if !ok || typ == "" || sub == "" || strings.Contains(sub, "/") {
		return "", "invalid_value"
	}
	canonical := mime.FormatMediaType(mediaType, params)
	if canonical == "" {
		return "", "invalid_value"
	}
	return canonical, ""
}

// cidProblem checks a's Content-ID against the rules and the ids already
// used in the email (stored lowercase).
func cidProblem(a AttachmentInput, used map[string]bool) string {
	if a.CID == "" {
		switch {
		case a.HasCID:
			return "empty"
		case a.Disposition == DispositionInline:
			return "required"
		}
		return ""
	}
	if len(a.CID) > MaxCIDLen {
		return "invalid_value"
	}
	for i := 0; i < len(a.CID); i++ {
		c := a.CID[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._@-", c) >= 0) {
			return "invalid_value"
		}
	}
	if used[strings.ToLower(a.CID)] {
		return "duplicate"
	}
	return ""
}

// ResolveSchedule turns a requested scheduledAt into the time to store
// (D21): nil means send now, as does a time not after now; a time more than
// 30 days after now is refused ("scheduledAt", too_far_ahead). The result is
// in UTC with microsecond precision, the precision of the stores.
func ResolveSchedule(now time.Time, at *time.Time) (*time.Time, error) {
	if at == nil {
		return nil, nil
	}
	t := at.UTC().Truncate(time.Microsecond)
	if !t.After(now) {
		return nil, nil
	}
	if t.Sub(now) > MaxScheduleAhead {
		return nil, Invalid("scheduledAt", "too_far_ahead")
	}
	return &t, nil
}

// ValidateIdempotencyKey checks an idempotency key (D22), whether it came
// from the body or the Idempotency-Key header (the caller reports the
// header under the same field): 1 to 256 printable ASCII characters
// (space included). Reasons on "idempotencyKey": empty, too_long,
// invalid_value.
func ValidateIdempotencyKey(k string) error {
	if k == "" {
		return Invalid("idempotencyKey", "empty")
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e {
			return Invalid("idempotencyKey", "invalid_value")
		}
	}
	if len(k) > MaxIdempotencyKeyLen {
		return Invalid("idempotencyKey", "too_long")
	}
	return nil
}

// CheckRecipientCount enforces D14 on the number of recipients: at least one
// in to ("to", required) and at most 50 in to, cc and bcc together ("to",
// too_many).
func CheckRecipientCount(to, cc, bcc int) error {
	if to < 1 {
		return Invalid("to", "required")
	}
	if to+cc+bcc > MaxRecipients {
		return Invalid("to", "too_many")
	}
	return nil
}
