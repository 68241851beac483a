package bounce

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// FuzzParse checks that no input makes Parse panic, fail with anything but
// ErrNotABounce, or return a report that breaks its documented bounds.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.eml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(""))
	f.Add([]byte("Content-Type: multipart/report; boundary=\"\"\n\n--\n--\n"))
	f.Add([]byte("Content-Type: message/rfc822\n\nContent-Type: message/rfc822\n\n"))
	f.Add([]byte("Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n====\n"))
	f.Add([]byte("X-Failed-Recipients: <@>\n\n550 5.1.1 a@b.c"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := Parse(raw)
		if err != nil {
			if !errors.Is(err, ErrNotABounce) || r != nil {
				t.Fatalf("Parse = %v, %v; want nil, ErrNotABounce", r, err)
			}
			return
		}
		checkReportBounds(t, r)
	})
}

// checkReportBounds asserts what every report Parse returns must satisfy.
func checkReportBounds(t *testing.T, r *Report) {
	t.Helper()
	switch r.Kind {
	case KindDSN, KindARF, KindPlain:
	default:
		t.Fatalf("kind %q", r.Kind)
	}
	for _, s := range []string{r.OriginalMessageID, r.OriginalEnvelopeID, r.FeedbackType, r.OriginalMailFrom} {
		if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
			t.Fatalf("unclean string %q", s)
		}
	}
	if len(r.Recipients) > maxRecipients {
		t.Fatalf("%d recipients", len(r.Recipients))
	}
	if r.Kind != KindARF && len(r.Recipients) == 0 {
		t.Fatalf("%s report without recipients", r.Kind)
	}
	for _, rr := range r.Recipients {
		switch rr.Class {
		case ClassHard, ClassSoft, ClassBlock, ClassDelayed, ClassDelivered, "":
			if r.Kind == KindARF {
				t.Fatalf("ARF recipient with class %q", rr.Class)
			}
		case ClassComplaint:
			if r.Kind != KindARF {
				t.Fatalf("%s recipient with class complaint", r.Kind)
			}
		default:
			t.Fatalf("class %q", rr.Class)
		}
		if len(rr.Diagnostic) > maxDiagnostic {
			t.Fatalf("diagnostic of %d bytes", len(rr.Diagnostic))
		}
		if rr.Status != "" && findEnhancedCode(rr.Status) != rr.Status {
			t.Fatalf("status %q is not an enhanced code", rr.Status)
		}
		for _, s := range []string{rr.Recipient, rr.OriginalRecipient, rr.Action, rr.Diagnostic} {
			if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
				t.Fatalf("unclean string %q", s)
			}
		}
		if rr.Code != 0 && (rr.Code < 200 || rr.Code > 599) {
			t.Fatalf("code %d", rr.Code)
		}
	}
}

// TestParseLargeInputsBounded feeds large inputs, each shaped to stress
// one part of the parser, and checks the reports stay within their bounds.
// Their cost is measured, not asserted (the project keeps timings out of
// tests): a parser gone quadratic on inputs this size would not finish
// within the test binary's timeout. Only the first input passes the 10 MB
// cap; the others are smaller to keep the suite fast under -race.
func TestParseLargeInputsBounded(t *testing.T) {
	t.Parallel()
	size := MaxInputSize + MaxInputSize/5
	fill := func(prefix, unit string) []byte {
		var b strings.Builder
		b.Grow(size + len(unit))
		b.WriteString(prefix)
		for b.Len() < size {
			b.WriteString(unit)
		}
		return []byte(b.String())
	}
	dsn := string(readCorpus(t, "dsn_postfix_hard_5_1_1.eml"))
	cut := strings.LastIndex(dsn, "--4F1E2D3C4B")
	tests := []struct {
		name  string
		raw   []byte
		check func(*Report, error) bool
	}{
		{"dsn with a huge returned original", fill(dsn[:cut]+"X-Pad: ", "0123456789abcdef\n\t"),
			func(r *Report, err error) bool { return err == nil && r.Recipients[0].Class == ClassHard }},
		{"plain bounce naming many addresses", fill("Subject: x\n\nUser unknown\n", "a@example.org b@example.net 550 5.1.1\n"),
			func(r *Report, err error) bool { return err == nil && len(r.Recipients) == 2 }},
		{"plain bounce with one address mentioned everywhere", fill("Subject: x\n\nUser unknown\n", "a@example.org is gone\n"),
			func(r *Report, err error) bool { return err == nil && len(r.Recipients) == 1 }},
		{"thousands of empty parts", fill("Content-Type: multipart/mixed; boundary=b\n\n", "--b\n"), nil},
		{"endless folded header", fill("Subject: a\n", " folded\n"), nil},
		{"html made of tags", fill("Content-Type: text/html\n\n", "<p><"), nil},
		{"digits everywhere", fill("Subject: x\n\nUser unknown x@y.org\n", "5.5.5.5 550 5"), nil},
		{"dsn made of tiny recipient blocks", fill("Content-Type: message/delivery-status\n\n", "Final-Recipient: rfc822;a@b.c\n\n"),
			nil},
	}
	for i, tc := range tests {
		if i > 0 && len(tc.raw) > MaxInputSize/8 {
			tc.raw = tc.raw[:MaxInputSize/8]
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r, err := Parse(tc.raw)
			elapsed := time.Since(start)
			t.Logf("%d bytes parsed in %v", len(tc.raw), elapsed)
			if err == nil {
				checkReportBounds(t, r)
			}
			if tc.check != nil && !tc.check(r, err) {
				t.Errorf("Parse = %+v, %v", r, err)
			}
		})
	}
}
