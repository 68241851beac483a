package main

import (
	"bufio"
	"strings"
	"testing"
)

func TestHasDKIMSignature(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 9000)
	cases := map[string]struct {
		msg  string
		want bool
	}{
		"signed":             {"Dkim-Signature: v=1; a=rsa-sha256;\r\n b=abc\r\nFrom: a@b\r\n\r\nbody\r\n", true},
		"unsigned":           {"From: a@b\r\nSubject: hi\r\n\r\nDKIM-Signature: in the body\r\n", false},
		"long signed line":   {"DKIM-Signature: " + long + "\r\nFrom: a@b\r\n\r\nbody\r\n", true},
		"long other line":    {"X-Long: " + long + "\r\nFrom: a@b\r\n\r\nbody\r\n", false},
		"no body, no ending": {"From: a@b\r\n", false},
	}
	for name, c := range cases {
		got, err := hasDKIMSignature(bufio.NewReaderSize(strings.NewReader(c.msg), 4096))
		if err != nil || got != c.want {
			t.Errorf("%s: hasDKIMSignature = %v, %v; want %v", name, got, err, c.want)
		}
	}
}
