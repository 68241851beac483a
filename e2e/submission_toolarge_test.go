package e2e

import (
	"net/smtp"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/submission"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestSubmissionRefusesAMessageOver40MB (D74): a client that does not
// declare SIZE and sends 1 MB over the 40 MB limit in DATA is answered
// 552 5.3.4 once it has sent the final dot, and the session goes on: the
// next message is queued. What the server allocates meanwhile (the limit's
// worth, not the message) is TestDataOverTheCapAllocatesAboutTheCap's, in
// internal/submission, where no other test shares the heap. SQLite only:
// the refusal comes while DATA is read, before any store is asked, and 41
// MB through go-smtp's reader under -race costs minutes of CPU.
//
// Not parallel: minutes of CPU under -race (see above).
func TestSubmissionRefusesAMessageOver40MB(t *testing.T) {
	ts, _ := submissionServer(t, testserver.SQLite, nil)
	c := submissionClient(t, ts.SubmissionAddr(), false) // loopback: no TLS needed, less CPU
	testserver.Must(t, c.Auth(smtp.PlainAuth("", "u", ts.LiveKey, "127.0.0.1")) == nil, "AUTH")
	testserver.Must(t, command(t, c, "MAIL FROM:<orders@shop.example>", 250) == "", "MAIL")
	testserver.Must(t, command(t, c, "RCPT TO:<ana@customer.example>", 250) == "", "RCPT")
	testserver.Must(t, command(t, c, "DATA", 354) == "", "DATA")

	// The body goes straight onto the connection in 64 KB blocks: no line
	// starts with a dot, so there is nothing to dot-stuff, and the client's
	// DotWriter (one byte at a time, race-instrumented) would cost more CPU
	// than the server's read that the test is about.
	w := c.Text.W
	_, err := w.WriteString("From: orders@shop.example\r\nTo: ana@customer.example\r\nSubject: huge\r\n" +
		"Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	testserver.Must(t, err == nil, "write headers: %v", err)
	line := strings.Repeat("QUJD", 19) + "\r\n" // 78 octets, as base64 bodies are written
	block := strings.Repeat(line, 840)          // 65,520 octets
	for n := 0; n < submission.MaxMessageBytes+1<<20 && err == nil; n += len(block) {
		_, err = w.WriteString(block)
	}
	testserver.Must(t, err == nil, "write body: %v", err)
	_, err = w.WriteString(".\r\n")
	testserver.Must(t, err == nil && w.Flush() == nil, "end DATA: %v", err)
	code, text, _ := c.Text.ReadResponse(0)
	mustPrefix(t, "message over 40 MB", itoa(code)+" "+text, "552 5.3.4")

	testserver.Must(t, command(t, c, "RSET", 250) == "", "RSET after the refusal")
	reply := transact(t, c, "orders@shop.example", []string{"ana@customer.example"}, plainMessage("orders@shop.example", "ana@customer.example"))
	testserver.Must(t, queuedReply.MatchString(reply), "next message after the refusal: %q", reply)
}
