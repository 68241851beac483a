package mta

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code     int
		enhanced string
		want     Class
	}{
		{250, "2.0.0", ClassAccepted},
		{251, "", ClassAccepted},
		{421, "4.3.2", ClassTemporary},
		{451, "4.7.1", ClassTemporary}, // greylisting: policy, but temporary
		{452, "", ClassTemporary},
		{550, "5.1.1", ClassPermanent},
		{552, "5.2.2", ClassPermanent},
		{550, "5.7.1", ClassBlock},
		{554, "5.7.26", ClassBlock}, // DMARC failure
		{550, "", ClassPermanent},   // no enhanced code: the basic code decides
		{554, "", ClassPermanent},
		{0, "5.7.1", ClassBlock}, // no basic code: the enhanced class decides
		{0, "4.4.1", ClassTemporary},
		{0, "", ClassTemporary},
		{354, "", ClassTemporary}, // not an outcome: never lose the mail
	}
	for _, tc := range cases {
		if got := Classify(tc.code, tc.enhanced); got != tc.want {
			t.Errorf("Classify(%d, %q) = %q, want %q", tc.code, tc.enhanced, got, tc.want)
		}
	}
}

func TestResultSummary(t *testing.T) {
	t.Parallel()
	if got := (Result{Code: 550, Enhanced: "5.1.1", Message: "no such user"}).Summary(); got != "550 5.1.1 no such user" {
		t.Errorf("Summary = %q", got)
	}
	if got := (Result{Enhanced: "4.4.1", Message: "connection refused"}).Summary(); got != "connection refused" {
		t.Errorf("Summary = %q", got)
	}
}

func TestReadReply(t *testing.T) {
	t.Parallel()
	cases := []struct {
		wire     string
		code     int
		enhanced string
		text     string
	}{
		{"250 2.1.5 Ok\r\n", 250, "2.1.5", "Ok"},
		{"550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 Please try again.\r\n", 550, "5.1.1", "The email account that you tried to reach does not exist. Please try again."},
		{"554 no enhanced code here\r\n", 554, "", "no enhanced code here"},
		{"451 5.7.1 class mismatch is not an enhanced code\r\n", 451, "", "5.7.1 class mismatch is not an enhanced code"},
		{"220\r\n", 220, "", ""},
		{"250-mx.example.org\r\n250-PIPELINING\r\n250 SIZE 1000\n", 250, "", "mx.example.org PIPELINING SIZE 1000"},
	}
	for _, tc := range cases {
		s := &session{br: bufio.NewReader(strings.NewReader(tc.wire))}
		r, err := s.readReply()
		if err != nil {
			t.Errorf("%q: %v", tc.wire, err)
			continue
		}
		if r.code != tc.code || r.enhanced != tc.enhanced || r.text() != tc.text {
			t.Errorf("%q parsed as %d %q %q", tc.wire, r.code, r.enhanced, r.text())
		}
	}
	for _, bad := range []string{"hello\r\n", "25\r\n", "250-first\r\n251 second\r\n", "999 x\r\n", "250x\r\n", "250-unterminated"} {
		s := &session{br: bufio.NewReader(strings.NewReader(bad))}
		if r, err := s.readReply(); err == nil {
			t.Errorf("%q accepted as %+v", bad, r)
		}
	}
	long := "250 " + strings.Repeat("x", readBufferSize) + "\r\n"
	s := &session{br: bufio.NewReaderSize(strings.NewReader(long), readBufferSize)}
	if _, err := s.readReply(); err == nil {
		t.Error("reply line longer than the buffer accepted")
	}
}

func TestWriteDotStuffed(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                            ".\r\n",
		"a\r\n":                       "a\r\n.\r\n",
		".\r\n":                       "..\r\n.\r\n",
		"a\r\n.b\r\n..c\r\n":          "a\r\n..b\r\n...c\r\n.\r\n",
		"no final break":              "no final break\r\n.\r\n",
		"x\r\n.":                      "x\r\n..\r\n.\r\n",
		"line.with.dots\r\n\r\n.\r\n": "line.with.dots\r\n\r\n..\r\n.\r\n",
	}
	for in, want := range cases {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		writeDotStuffed(w, []byte(in))
		_ = w.Flush()
		if buf.String() != want {
			t.Errorf("writeDotStuffed(%q) = %q, want %q", in, buf.String(), want)
		}
	}
}

func TestXtext(t *testing.T) {
	t.Parallel()
	if got := xtext("email-1+a=b c\x01é"); got != "email-1+2Ba+3Db+20c+01+C3+A9" {
		t.Errorf("xtext = %q", got)
	}
}
