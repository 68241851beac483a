package mta

import (
	"bytes"
	"context"
	"errors"
	"strings"
)

// Envelope is the SMTP envelope of one delivery.
type Envelope struct {
	// From is the return path (MAIL FROM), "" for the null sender.
	From string
	// Recipients are the RCPT TO addresses (To, Cc and Bcc alike).
	Recipients []string
	// EnvelopeID is the DSN ENVID (RFC 3461), sent when DSN is requested,
	// so a returning DSN names the email it is about.
	EnvelopeID string
	// ReturnPaths, when set, has one return path per entry of Recipients,
	// replacing From (D65: each recipient's bounces come back to an address
	// naming that recipient). Recipients that share a return path share a
	// transaction; each other one gets its own, on the same connection,
	// with the same message bytes (signed once).
	ReturnPaths []string
	// Background marks a broadcast's email: waiting for a connection to a
	// destination, it lets transactional email go first (D80).
	Background bool
}

// txEnvelope is the envelope of one SMTP transaction of a delivery, with
// the position in the delivery's Recipients of each of its recipients.
type txEnvelope struct {
	env     Envelope
	indexes []int
}

// transactions splits env into its transactions: one per distinct return
// path, in the order of their first recipient. Without ReturnPaths it is
// env itself, one transaction as before D65.
func (env Envelope) transactions() []txEnvelope {
	if len(env.ReturnPaths) == 0 || len(env.Recipients) == 1 {
		// The common case, one transaction, costs no grouping.
		if len(env.ReturnPaths) > 0 {
			env = Envelope{From: env.ReturnPaths[0], Recipients: env.Recipients, EnvelopeID: env.EnvelopeID}
		}
		indexes := make([]int, len(env.Recipients))
		for i := range indexes {
			indexes[i] = i
		}
		return []txEnvelope{{env: env, indexes: indexes}}
	}
	var out []txEnvelope
	byPath := make(map[string]int, len(env.Recipients))
	for i, rcpt := range env.Recipients {
		from := env.From
		if i < len(env.ReturnPaths) {
			from = env.ReturnPaths[i]
		}
		k, seen := byPath[from]
		if !seen {
			k = len(out)
			byPath[from] = k
			out = append(out, txEnvelope{env: Envelope{From: from, EnvelopeID: env.EnvelopeID}})
		}
		out[k].env.Recipients = append(out[k].env.Recipients, rcpt)
		out[k].indexes = append(out[k].indexes, i)
	}
	return out
}

// place copies a transaction's results into the delivery's.
func (tx txEnvelope) place(results, got []Result) {
	for j, i := range tx.indexes {
		results[i] = got[j]
	}
}

// fill gives every recipient of the transactions the same outcome.
func fill(results []Result, txs []txEnvelope, r Result) {
	for _, tx := range txs {
		tx.place(results, fillAll(tx.env, r))
	}
}

// Transport hands a message to SMTP. Deliver returns exactly one Result per
// entry of env.Recipients, in the same order, whatever happens; it never
// blocks longer than its timeouts and ctx allow. Implementations are safe
// for concurrent use.
type Transport interface {
	Deliver(ctx context.Context, env Envelope, data []byte) []Result
}

// Enhanced codes for failures that are not SMTP replies (RFC 3463).
const (
	enhancedNoAnswer      = "4.4.1" // could not connect, or no greeting
	enhancedBadConnection = "4.4.2" // connection lost or timed out mid-session
	enhancedDNSFailure    = "4.4.3" // routing server failure
	enhancedBadMailbox    = "5.1.3" // bad destination mailbox address syntax
	enhancedBadSender     = "5.1.7" // bad sender's mailbox address syntax
	enhancedNoRoute       = "5.1.2" // bad destination system address
	enhancedNullMX        = "5.1.10"
	enhancedTooBig        = "5.3.4"
	enhancedNeedsUTF8     = "5.6.7"
	enhancedBadContent    = "5.6.0"
)

// fillAll gives every recipient the same outcome.
func fillAll(env Envelope, r Result) []Result {
	out := make([]Result, len(env.Recipients))
	for i, rcpt := range env.Recipients {
		out[i] = r
		out[i].Recipient = rcpt
	}
	return out
}

// failure is an outcome without an SMTP reply.
func failure(class Class, enhanced, host, message string) Result {
	return Result{Class: class, Enhanced: enhanced, Host: host, Message: message}
}

// precheck refuses what must never reach a server: a malformed envelope
// address (CR or LF in it would inject SMTP commands) or data with a bare
// CR, bare LF or NUL (SMTP smuggling, RFC 5321 section 2.3.8). It returns
// nil when all is well, else the results to return as they are.
func precheck(env Envelope, data []byte) []Result {
	for _, from := range append([]string{env.From}, env.ReturnPaths...) {
		if from == "" {
			continue
		}
		if err := checkAddress("sender", from); err != nil {
			return fillAll(env, failure(ClassPermanent, enhancedBadSender, "", err.Error()))
		}
	}
	if err := checkData(data); err != nil {
		return fillAll(env, failure(ClassPermanent, enhancedBadContent, "", err.Error()))
	}
	return nil
}

// checkRecipient reports a recipient that cannot be sent to as a result.
func checkRecipient(rcpt string) (Result, bool) {
	if err := checkAddress("recipient", rcpt); err != nil {
		return Result{Recipient: rcpt, Class: ClassPermanent, Enhanced: enhancedBadMailbox, Message: err.Error()}, false
	}
	return Result{}, true
}

// errBadData describes data that is not CRLF-clean.
var errBadData = errors.New("mta: message contains a bare CR, a bare LF or NUL")

// checkData accepts only CRLF line endings and no NUL. Counting is fast
// (vectorised in package bytes) even for a 25 MB message.
func checkData(data []byte) error {
	crlf := bytes.Count(data, []byte("\r\n"))
	if bytes.Count(data, []byte{'\r'}) != crlf || bytes.Count(data, []byte{'\n'}) != crlf ||
		bytes.IndexByte(data, 0) >= 0 {
		return errBadData
	}
	return nil
}

// isASCII reports whether s is 7-bit.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// has8Bit reports whether data has a byte above 127, which requires
// BODY=8BITMIME.
func has8Bit(data []byte) bool {
	for _, c := range data {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// domainOf returns the lowercased domain of an address.
func domainOf(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	return strings.ToLower(strings.TrimSuffix(addr[at+1:], "."))
}
