package bounce

import "strings"

// Who a permanent refusal blames decides what it does (D69, amending D46):
// only a reply that blames the recipient suppresses the address; a block by
// the receiving provider suppresses it for a while (isp_block); a reply
// about the sending side's configuration fails this recipient and
// suppresses nothing, since the address is fine and only the sender can
// fix the cause.

// RefineStatus applies D69's X.0.0 rule: a status that says nothing beyond
// its class ("5.0.0", which Exim always writes, or the "5.0.0" derived
// from a bare basic code) is replaced by the first enhanced code of the
// same class found in the diagnostic or reply text ("smtp; 550 5.1.1 ...").
// Any other status is returned as it is.
func RefineStatus(status, diagnostic string) string {
	if status != "" && !strings.HasSuffix(status, ".0.0") {
		return status
	}
	found := findEnhancedCode(diagnostic)
	if found == "" || (status != "" && found[0] != status[0]) {
		return status
	}
	return found
}

// subjectDetail is the part of an enhanced code after its class ("1.1" of
// "5.1.1"), "" when there is none.
func subjectDetail(code string) string {
	if len(code) > 2 {
		return code[2:]
	}
	return ""
}

// senderAuthCode reports an X.7.x code that is about the sender's
// authentication (RFC 7372, RFC 8689): X.7.7 integrity, X.7.8 credentials,
// X.7.20 to X.7.27 DKIM, SPF, reverse DNS, multiple checks and null MX of
// the sender.
func senderAuthCode(sd string) bool {
	switch sd {
	case "7.7", "7.8", "7.20", "7.21", "7.22", "7.23", "7.24", "7.25", "7.26", "7.27":
		return true
	}
	return false
}

// Cause names what a sending-side refusal (ClassSender) is about, for the
// domain's health (D69): "helo", "ptr", "spf", "dkim", "dmarc",
// "authentication", "sender_address", "protocol", "mail_system" or
// "routing". It returns "" for a reply that does not blame the sending
// side.
func Cause(status, diagnostic string) string {
	status = RefineStatus(findEnhancedCode(status), diagnostic)
	if status == "" {
		if r, ok := findReply(diagnostic); ok {
			status = r.status
		}
	}
	if byWords := senderCauseInWords(strings.ToLower(diagnostic)); byWords != "" {
		return byWords
	}
	switch sd := subjectDetail(status); {
	case sd == "7.20" || sd == "7.21" || sd == "7.22":
		return "dkim"
	case sd == "7.23" || sd == "7.24":
		return "spf"
	case sd == "7.25":
		return "ptr"
	case sd == "7.26" || sd == "7.7" || sd == "7.8":
		return "authentication"
	case sd == "7.27" || sd == "1.7" || sd == "1.8":
		return "sender_address"
	case strings.HasPrefix(sd, "5."):
		return "protocol"
	case strings.HasPrefix(sd, "3."):
		return "mail_system"
	case strings.HasPrefix(sd, "4."):
		return "routing"
	}
	return ""
}

// senderCauseInWords finds the sending-side cause a reply's text names
// (lowercased), matching whole words so that "ptr" is not found inside
// another word.
func senderCauseInWords(lower string) string {
	words := wordSet(lower)
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(w, " ") {
				if strings.Contains(lower, w) {
					return true
				}
			} else if words[w] {
				return true
			}
		}
		return false
	}
	switch {
	case has("helo", "ehlo", "fully-qualified", "fqdn"):
		return "helo"
	case has("ptr", "rdns", "reverse dns", "reverse lookup", "reverse-dns", "reverse hostname", "cannot find your hostname"):
		return "ptr"
	case has("dmarc"):
		return "dmarc"
	case has("spf"):
		return "spf"
	case has("dkim"):
		return "dkim"
	case has("unauthenticated", "not authenticated", "authentication"):
		return "authentication"
	case has("sender address rejected", "sender verify", "sender address verification"):
		return "sender_address"
	}
	return ""
}

// wordSet splits s at every character that cannot be part of a word.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		set[w] = true
	}
	return set
}
