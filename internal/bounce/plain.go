package bounce

import (
	"strings"
)

// failurePhrases mark a human-readable bounce (lowercase). They were
// collected from the plain-text bounces of Gmail, Exchange/Outlook, Yahoo,
// Exim, Sendmail and qmail.
var failurePhrases = []string{
	"delivery to the following recipient failed permanently",
	"delivery to the following recipients failed permanently",
	"the email account that you tried to reach does not exist",
	"delivery has failed to these recipients",
	"message could not be delivered",
	"could not be delivered to",
	"couldn't be delivered",
	"wasn't delivered to",
	"was not delivered to",
	"unable to deliver your message",
	"undeliverable to the following",
	"the following address(es) failed",
	"this is a permanent error",
	"permanent fatal errors",
	"user unknown",
	"no such user",
	"mailbox full",
	"550-5.1.1",
	"550 5.1.1",
}

// delayPhrases mark a notice that delivery is late but still being tried.
var delayPhrases = []string{
	"delivery to the following recipient has been delayed",
	"delivery to the following recipients has been delayed",
	"delivery has been delayed",
	"message delivery delayed",
	"delivery incomplete",
	"has not yet been delivered",
	"will be retried",
	"will retry",
	"will keep trying",
	"warning only",
}

// originalMarkers introduce the copy of the original message (or its
// headers) that a plain bounce quotes after its explanation.
var originalMarkers = []string{
	"original message headers",
	"----- original message -----",
	"below this line is a copy of the message",
	"this is a copy of the message",
	"original message follows",
	"undelivered message headers",
	"returned mail header",
	"\nreceived: ",
	"\nreturn-path:",
	"\nmessage-id:",
	"\ndkim-signature:",
}

// bounceSubjects mark the subject of a bounce sent by a mailer daemon.
var bounceSubjects = []string{
	"undeliver", "undelivered", "delivery status notification", "delivery failure",
	"mail delivery failed", "failure notice", "returned mail", "delivery failed",
	"non remis", "não entregue", "no se puede entregar",
}

// delaySubjects mark the subject of a delay notice (the customer's own
// subject, quoted after "Undeliverable:", may say "delay" too, so these
// are the daemons' exact wordings).
var delaySubjects = []string{
	"(delay)", "delayed mail", "delivery delayed", "warning: could not send", "warning: message",
}

// autoReplySubjects mark an auto-reply (lowercase subject prefixes).
var autoReplySubjects = []string{
	"automatic reply", "auto reply", "autoreply", "auto-reply", "auto:", "out of office",
	"out of the office", "resposta automática", "respuesta automática", "abwesenheit",
	"réponse automatique",
}

// plainBounce holds what the heuristics found in one human-readable
// bounce before recipients are reported.
type plainBounce struct {
	root   *part
	text   string // bounce text, LF line breaks
	lower  string // asciiLower(text)
	end    int    // where the quoted original starts, or len(text)
	delay  bool   // the text says delivery will be retried
	header header // header of the original, when found
}

// parsePlain recognises a human-readable bounce and returns its report,
// or nil when the message does not look like one.
func parsePlain(root *part) *Report {
	if isAutoReply(root.header) && !root.header.has("x-failed-recipients") {
		return nil
	}
	b := &plainBounce{root: root, text: bounceText(root)}
	b.lower = asciiLower(b.text)
	// Phrases are matched with line breaks flattened, since bounces wrap
	// their sentences ("could not\nbe delivered").
	flat := strings.Join(strings.Fields(b.lower), " ")
	if !containsAny(flat, failurePhrases) && !containsAny(flat, delayPhrases) &&
		!root.header.has("x-failed-recipients") && !b.daemonWithReply() {
		return nil
	}
	b.end = len(b.text)
	if m := indexFirst(b.lower, 0, originalMarkers); m >= 0 {
		b.end = m
	}
	explanation := strings.Join(strings.Fields(b.lower[:b.end]), " ")
	b.delay = containsAny(explanation, delayPhrases) ||
		containsAny(decodedSubject(root.header), delaySubjects)
	var hasOriginal bool
	b.header, hasOriginal = findOriginal(root, nil)
	if !hasOriginal {
		b.header = includedHeader(b.text, b.end)
	}
	report := &Report{Kind: KindPlain, OriginalMessageID: originalMessageID(b.header)}
	if report.OriginalMessageID == "" {
		report.OriginalMessageID = scanMessageID(b.text, b.lower, b.end)
	}
	skip := b.notRecipients(report.OriginalMessageID)
	named := b.mentions(skip)
	recipients := b.recipients(named, skip)
	finder := &replyFinder{b: b, named: named, sharedEnd: b.end}
	if len(recipients) > 1 && len(named) > 0 {
		// With several recipients only a reply quoted before any of them
		// is shared; one quoted after a mention belongs to that address.
		finder.sharedEnd = named[0].start
	}
	for _, addr := range recipients {
		report.Recipients = append(report.Recipients, b.recipientReport(addr, finder))
	}
	if len(report.Recipients) == 0 {
		return nil
	}
	return report
}

// daemonWithReply reports whether a message without bounce phrases is
// still a bounce: sent by a mailer daemon, with a bounce subject, quoting
// an SMTP reply with an enhanced code.
func (b *plainBounce) daemonWithReply() bool {
	from := strings.ToLower(b.root.header.get("from"))
	if !strings.Contains(from, "mailer-daemon") && !strings.Contains(from, "postmaster") {
		return false
	}
	if !containsAny(decodedSubject(b.root.header), bounceSubjects) {
		return false
	}
	r, ok := findReply(b.text)
	return ok && r.status != ""
}

// isAutoReply reports whether h is the header of an auto-reply (an
// out-of-office answer), which is never a bounce. Auto-Submitted is not
// used: Gmail marks its bounces "auto-replied" too.
func isAutoReply(h header) bool {
	if h.has("x-autoreply") || h.has("x-autorespond") || strings.EqualFold(h.get("precedence"), "auto_reply") {
		return true
	}
	subject := strings.TrimSpace(decodedSubject(h))
	for _, prefix := range autoReplySubjects {
		if strings.HasPrefix(subject, prefix) {
			return true
		}
	}
	return false
}

// maxMentions bounds the address mentions the heuristics look at.
const maxMentions = 10000

// mention is one address named in a bounce's explanation.
type mention struct {
	addr       string // normalized
	start, end int    // offsets in text
}

// mentions returns the addresses named before the quoted original, except
// those skip rejects, in order.
func (b *plainBounce) mentions(skip func(string) bool) []mention {
	var out []mention
	for _, loc := range addressPattern.FindAllStringIndex(b.text[:b.end], maxMentions) {
		if addr := normalizeAddress(b.text[loc[0]:loc[1]]); !skip(addr) {
			out = append(out, mention{addr: addr, start: loc[0], end: loc[1]})
		}
	}
	return out
}

// recipients returns the failed addresses: X-Failed-Recipients when
// present, else the addresses the explanation names, else the single To of
// the quoted original.
func (b *plainBounce) recipients(named []mention, skip func(string) bool) []string {
	if v := b.root.header.values("x-failed-recipients"); len(v) > 0 {
		if list := addressList(strings.Join(v, ", ")); len(list) > 0 {
			return list
		}
	}
	var out []string
	for _, m := range named {
		out = appendUnique(out, m.addr)
	}
	if len(out) == 0 {
		if to := addressList(b.header.get("to")); len(to) == 1 && !skip(to[0]) {
			out = to
		}
	}
	return out
}

// notRecipients returns a predicate for addresses in a bounce's text that
// are not failed recipients: the daemon, the bounce address, the original
// sender, the original Message-ID (which looks like an address).
func (b *plainBounce) notRecipients(originalID string) func(string) bool {
	var known []string
	for _, v := range []string{b.root.header.get("from"), b.root.header.get("to"), b.header.get("from"), b.header.get("return-path"), b.header.get("sender")} {
		known = append(known, addressList(v)...)
	}
	originalID = strings.ToLower(originalID)
	return func(addr string) bool {
		local := addr[:max(strings.IndexByte(addr, '@'), 0)]
		switch {
		case local == "mailer-daemon" || local == "postmaster" || strings.HasPrefix(local, "bounces+"):
			return true
		case addr == originalID:
			return true
		}
		for _, k := range known {
			if k == addr {
				return true
			}
		}
		return false
	}
}

// replyFinder finds the SMTP reply quoted for each recipient of a plain
// bounce: the first reply after one of its mentions and before the
// mention of another address, else the reply shared by all recipients.
type replyFinder struct {
	b          *plainBounce
	named      []mention
	sharedEnd  int    // the shared reply is searched in text[:sharedEnd]
	fallback   *reply // the shared reply, computed once
	fallbackAt int
}

// find returns the reply for addr and its offset in the text, or -1.
func (f *replyFinder) find(addr string) (reply, int) {
	searched := 0 // segments of one address overlap; search each byte once
	for i, m := range f.named {
		if m.addr != addr || m.end < searched {
			continue
		}
		segEnd := f.b.end
		for _, next := range f.named[i+1:] {
			if next.addr != addr {
				segEnd = next.start
				break
			}
		}
		segStart := max(m.end, searched)
		if rep, ok := findReply(f.b.text[segStart:segEnd]); ok {
			return rep, segStart + rep.start
		}
		searched = segEnd
	}
	if f.fallback == nil {
		rep, ok := findReply(f.b.text[:f.sharedEnd])
		f.fallback, f.fallbackAt = &rep, rep.start
		if !ok {
			f.fallbackAt = -1
		}
	}
	return *f.fallback, f.fallbackAt
}

// recipientReport builds the report of addr from its quoted reply, or
// from the explanation next to its mention when no reply is quoted.
func (b *plainBounce) recipientReport(addr string, finder *replyFinder) RecipientReport {
	r := RecipientReport{Recipient: addr}
	found, at := finder.find(addr)
	action := "failed"
	if b.delay {
		action = "delayed"
	}
	if at >= 0 {
		r.Code, r.Status = found.code, found.status
		r.Diagnostic = replyText(b.text, at, found.code)
		if found.code/100 == 5 || strings.HasPrefix(found.status, "5.") {
			action = "failed" // a permanent reply outweighs retry wording
		}
	} else {
		r.Diagnostic = b.explanationAfter(addr, finder.named)
	}
	r.Status = RefineStatus(r.Status, r.Diagnostic) // D69: X.0.0 says nothing
	r.Class = Classify(r.Status, action, r.Diagnostic)
	return r
}

// explanationAfter returns the first non-empty line after addr's first
// mention that does not itself name addr ("The email address you entered
// couldn't be found."), for bounces that quote no SMTP reply.
func (b *plainBounce) explanationAfter(addr string, named []mention) string {
	pos := -1
	for _, m := range named {
		if m.addr == addr {
			pos = lineEnd(b.text, m.start)
			break
		}
	}
	for lines := 0; pos >= 0 && pos < b.end && lines < 10; lines++ {
		next := pos + 1
		end := min(lineEnd(b.text, next), b.end)
		line := strings.TrimSpace(clip(b.text[next:end]))
		if line != "" && !strings.Contains(asciiLower(line), addr) {
			return trimDiagnostic(line)
		}
		pos = end
	}
	return ""
}

// includedHeader parses the original's header quoted in a bounce's text
// from offset from: the marker line and blank lines before the first
// header field are skipped.
func includedHeader(text string, from int) header {
	pos := from
	for lines := 0; pos < len(text) && lines < 6; lines++ {
		end := lineEnd(text, pos)
		line := strings.TrimSpace(text[pos:end])
		if line != "" && isFieldLine([]byte(line)) && text[pos] != ' ' && text[pos] != '\t' {
			h, _ := parseHeader([]byte(text[pos:]))
			return h
		}
		pos = end + 1
	}
	return nil
}

// scanMessageID finds a "Message-ID:" line at the start of a line at or
// after offset from, for quoted headers that includedHeader could not
// read as one block. A value folded onto the next line is followed.
func scanMessageID(text, lower string, from int) string {
	for pos := from; pos < len(lower); {
		i := strings.Index(lower[pos:], "message-id:")
		if i < 0 {
			return ""
		}
		at := pos + i
		pos = at + len("message-id:")
		if at > 0 && lower[at-1] != '\n' {
			continue
		}
		value := text[pos:lineEnd(text, pos)]
		if strings.TrimSpace(value) == "" && lineEnd(text, pos) < len(text) {
			next := lineEnd(text, pos) + 1
			value = text[next:lineEnd(text, next)]
		}
		if id := messageID(value); id != "" {
			return id
		}
	}
	return ""
}
