package bounce

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// corpusCase is the expected report of one testdata message.
type corpusCase struct {
	file string
	want *Report // nil: Parse must return ErrNotABounce
}

// corpus lists every message in testdata with what Parse must make of it
// (D23 to D26: class, status, code; D46: the class decides the suppression;
// D55: recipient and original Message-ID are what matching uses).
var corpus = []corpusCase{
	{"dsn_postfix_hard_5_1_1.eml", &Report{
		Kind:               KindDSN,
		OriginalMessageID:  "16f3a8b0-9c1e-4d2e-8f7a-2b9c0d1e3f45@shop.example",
		OriginalEnvelopeID: "16f3a8b0-9c1e-4d2e-8f7a-2b9c0d1e3f45",
		Recipients: []RecipientReport{{
			Recipient: "alice@example.org", OriginalRecipient: "alice@example.org",
			Action: "failed", Status: "5.1.1", Code: 550, Class: ClassHard,
			Diagnostic: "550 5.1.1 <alice@example.org>: Recipient address rejected: User unknown in virtual mailbox table",
		}},
	}},
	// D69: Exim always writes "Status: 5.0.0"; the 5.1.1 of its
	// Diagnostic-Code is what the report says.
	{"dsn_exim_5_0_0_user_unknown.eml", &Report{
		Kind:              KindDSN,
		OriginalMessageID: "16f3a8b0-9c1e-4d2e-8f7a-2b9c0d1e3f45@shop.example",
		Recipients: []RecipientReport{{
			Recipient: "carol@example.net",
			Action:    "failed", Status: "5.1.1", Code: 550, Class: ClassHard,
			Diagnostic: "550 5.1.1 <carol@example.net>: Recipient address rejected: User unknown in local recipient table",
		}},
	}},
	{"dsn_mailbox_full_4_2_2_delayed.eml", &Report{
		Kind:               KindDSN,
		OriginalMessageID:  "b7c912d0-6a46-4f0e-9e2b-51d7c3a8e6f1@shop.example",
		OriginalEnvelopeID: "b7c912d0-6a46-4f0e-9e2b-51d7c3a8e6f1",
		Recipients: []RecipientReport{{
			Recipient: "ivan@example.net", OriginalRecipient: "ivan@example.net",
			Action: "delayed", Status: "4.2.2", Code: 452, Class: ClassDelayed,
			Diagnostic: "452 4.2.2 Mailbox full: ivan@example.net",
		}},
	}},
	{"dsn_mailbox_full_4_2_2_expired.eml", &Report{
		Kind:               KindDSN,
		OriginalMessageID:  "b7c912d0-6a46-4f0e-9e2b-51d7c3a8e6f1@shop.example",
		OriginalEnvelopeID: "b7c912d0-6a46-4f0e-9e2b-51d7c3a8e6f1",
		Recipients: []RecipientReport{{
			Recipient: "ivan@example.net", OriginalRecipient: "ivan@example.net",
			Action: "failed", Status: "4.2.2", Code: 452, Class: ClassSoft,
			Diagnostic: "452 4.2.2 Mailbox full: ivan@example.net",
		}},
	}},
	{"dsn_gmail_mailbox_full_5_2_2.eml", &Report{
		Kind:              KindDSN,
		OriginalMessageID: "d4a61c8e-2b3f-4c6a-a1d9-7e0f2b5c8a93@shop.example",
		Recipients: []RecipientReport{{
			Recipient: "bob.silva@gmail.com",
			Action:    "failed", Status: "5.2.2", Code: 552, Class: ClassSoft,
			Diagnostic: "552-5.2.2 The email account that you tried to reach is over quota and inbound mail is disabled. " +
				"Please direct the recipient to https://support.google.com/mail/?p=OverQuotaPerm a1-20020a05620a0e0100b0078341a9e1e4si1234567qkb.123 - gsmtp",
		}},
	}},
	{"dsn_outlook_policy_block_5_7_1.eml", &Report{
		Kind:              KindDSN,
		OriginalMessageID: "9a7f42b1-5c8d-4e3f-b2a1-6d0c9e8f7a65@shop.example",
		Recipients: []RecipientReport{{
			Recipient: "carol@contoso.com",
			Action:    "failed", Status: "5.7.1", Code: 550, Class: ClassBlock,
			Diagnostic: "550 5.7.1 Service unavailable, Client host [198.51.100.7] blocked using Spamhaus. " +
				"To request removal from this list see https://www.spamhaus.org/query/ip/198.51.100.7 AS(1430) " +
				"[BN8NAM12FT045.eop-nam12.prod.protection.outlook.com]",
		}},
	}},
	{"dsn_sendmail_delayed_4_4_7.eml", &Report{
		Kind:               KindDSN,
		OriginalMessageID:  "e2f8a9c3-7d4b-4e1a-9c2f-3b8d6e0a1f57@shop.example",
		OriginalEnvelopeID: "e2f8a9c3-7d4b-4e1a-9c2f-3b8d6e0a1f57",
		Recipients: []RecipientReport{{
			// No Diagnostic-Code: no code, no diagnostic.
			Recipient: "dave@example.net", Action: "delayed", Status: "4.4.7", Class: ClassDelayed,
		}},
	}},
	{"dsn_multi_recipient.eml", &Report{
		Kind:               KindDSN,
		OriginalMessageID:  "3c5d7e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f@shop.example",
		OriginalEnvelopeID: "3c5d7e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
		Recipients: []RecipientReport{
			{
				// ORCPT in xtext: "+2B" is the plus sign.
				Recipient: "erin+news@example.org", OriginalRecipient: "erin+news@example.org",
				Action: "failed", Status: "5.1.1", Code: 550, Class: ClassHard,
				Diagnostic: "550 5.1.1 <erin+news@example.org>... No such user",
			},
			{
				Recipient: "frank@example.net", OriginalRecipient: "frank@example.net",
				Action: "delayed", Status: "4.4.1", Code: 451, Class: ClassDelayed,
				Diagnostic: "451 4.4.1 No answer from host mx.example.net",
			},
			{
				// Forwarded: Final-Recipient differs from the address sent to.
				Recipient: "grace.h@mail.example.com", OriginalRecipient: "grace@example.com",
				Action: "delivered", Status: "2.0.0", Code: 250, Class: ClassDelivered,
				Diagnostic: "250 2.0.0 OK 1710068408 q12-20020a170906",
			},
		},
	}},
	{"arf_abuse_full_original.eml", &Report{
		Kind:              KindARF,
		FeedbackType:      "abuse",
		OriginalMailFrom:  "bounces+NmI4YzBkMWUtMmYzYS00.Xc4Vb8@bounces.shop.example",
		OriginalMessageID: "6b8c0d1e-2f3a-4b5c-9d6e-7f8a9b0c1d2e@shop.example",
		// No Original-Rcpt-To: the To of the original is a guess (D65).
		Recipients: []RecipientReport{{Recipient: "heidi.souza@example.net", Class: ClassComplaint, Guessed: true}},
	}},
	{"arf_headers_only.eml", &Report{
		Kind:              KindARF,
		FeedbackType:      "abuse",
		OriginalMailFrom:  "bounces+YTFiMmMzZDQtZTVmNi00.Jk8Lm2@bounces.shop.example", // from Return-Path
		OriginalMessageID: "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d@shop.example",
		Recipients:        []RecipientReport{{Recipient: "ivo.lima@example.org", Class: ClassComplaint}},
	}},
	{"plain_gmail.eml", &Report{
		Kind:              KindPlain,
		OriginalMessageID: "f7a8b9c0-d1e2-4f3a-8b4c-5d6e7f8a9b0c@shop.example",
		Recipients: []RecipientReport{{
			Recipient: "someone.missing@gmail.com", Status: "5.1.1", Code: 550, Class: ClassHard,
			Diagnostic: "550-5.1.1 The email account that you tried to reach does not exist. Please try " +
				"double-checking the recipient's email address for typos or unnecessary spaces. Learn more at " +
				"https://support.google.com/mail/?p=NoSuchUser q12si2345678qkb.123 - gsmtp",
		}},
	}},
	{"plain_exchange_ndr.eml", &Report{
		Kind:              KindPlain,
		OriginalMessageID: "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f@shop.example",
		Recipients: []RecipientReport{{
			Recipient: "frank.costa@contoso.com", Status: "5.1.1", Code: 550, Class: ClassHard,
			Diagnostic: "550 5.1.1 RESOLVER.ADR.RecipNotFound; not found",
		}},
	}},
	{"plain_yahoo.eml", &Report{
		Kind:              KindPlain,
		OriginalMessageID: "8d9e0f1a-2b3c-4d5e-9f6a-7b8c9d0e1f2a@shop.example",
		Recipients: []RecipientReport{{
			Recipient: "nobody.here@yahoo.com", Code: 554, Class: ClassHard,
			Diagnostic: "554: delivery error: dd This user doesn't have a yahoo.com account (nobody.here@yahoo.com) [0] - mta4127.mail.gq1.yahoo.com",
		}},
	}},
	{"autoreply_out_of_office.eml", nil},
	{"person_reply.eml", nil},
	{"garbage.eml", nil},
}

func readCorpus(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("reading corpus: %v", err)
	}
	return raw
}

func TestParseCorpus(t *testing.T) {
	t.Parallel()
	for _, tc := range corpus {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(readCorpus(t, tc.file))
			if tc.want == nil {
				if !errors.Is(err, ErrNotABounce) {
					t.Fatalf("Parse = %+v, %v; want ErrNotABounce", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			assertReport(t, got, tc.want)
		})
	}
}

// TestCorpusIsListed keeps the table and testdata in step: every message
// written there has its expectations here.
func TestCorpusIsListed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tc := range corpus {
		listed[tc.file] = true
	}
	for _, f := range files {
		if !listed[filepath.Base(f)] {
			t.Errorf("%s has no expectations in the corpus table", f)
		}
	}
}

// TestParseLineEndings parses every corpus message with CRLF and with LF
// line endings; both must give the same report.
func TestParseLineEndings(t *testing.T) {
	t.Parallel()
	for _, tc := range corpus {
		if tc.want == nil || strings.HasPrefix(tc.file, "plain_exchange") { // base64 body keeps its own line ends
			continue
		}
		raw := string(readCorpus(t, tc.file))
		// The corpus table leaves ReturnPaths out; they must not depend on
		// line endings either.
		want := *tc.want
		if base, err := Parse([]byte(raw)); err == nil {
			want.ReturnPaths = base.ReturnPaths
		}
		lf := strings.ReplaceAll(raw, "\r\n", "\n")
		crlf := strings.ReplaceAll(lf, "\n", "\r\n")
		for name, variant := range map[string]string{"lf": lf, "crlf": crlf} {
			got, err := Parse([]byte(variant))
			if err != nil {
				t.Errorf("%s (%s): %v", tc.file, name, err)
				continue
			}
			if !reflect.DeepEqual(got, &want) {
				t.Errorf("%s (%s):\n got %+v\nwant %+v", tc.file, name, got, &want)
			}
		}
	}
}

func assertReport(t *testing.T, got, want *Report) {
	t.Helper()
	if got.Kind != want.Kind || got.OriginalMessageID != want.OriginalMessageID ||
		got.OriginalEnvelopeID != want.OriginalEnvelopeID || got.FeedbackType != want.FeedbackType ||
		got.OriginalMailFrom != want.OriginalMailFrom {
		t.Errorf("report fields:\n got kind=%q msgid=%q envid=%q feedback=%q mailfrom=%q\nwant kind=%q msgid=%q envid=%q feedback=%q mailfrom=%q",
			got.Kind, got.OriginalMessageID, got.OriginalEnvelopeID, got.FeedbackType, got.OriginalMailFrom,
			want.Kind, want.OriginalMessageID, want.OriginalEnvelopeID, want.FeedbackType, want.OriginalMailFrom)
	}
	if len(got.Recipients) != len(want.Recipients) {
		t.Fatalf("%d recipients, want %d: %+v", len(got.Recipients), len(want.Recipients), got.Recipients)
	}
	for i := range want.Recipients {
		if got.Recipients[i] != want.Recipients[i] {
			t.Errorf("recipient %d:\n got %+v\nwant %+v", i, got.Recipients[i], want.Recipients[i])
		}
	}
}
