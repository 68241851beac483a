package ratelimit

import (
	"testing"
	"time"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	valid := []struct {
		in   string
		want Rule
	}{
		{"50,100", Rule{Rate: 50, Period: time.Second, Burst: 100}},
		{" 100 , 200 ", Rule{Rate: 100, Period: time.Second, Burst: 200}},
		{"5/m,5", Rule{Rate: 5, Period: time.Minute, Burst: 5}},
		{"5/1m,5", Rule{Rate: 5, Period: time.Minute, Burst: 5}},
		{"1000/h,10", Rule{Rate: 1000, Period: time.Hour, Burst: 10}},
		{"3/10s,3", Rule{Rate: 3, Period: 10 * time.Second, Burst: 3}},
	}
	for _, tt := range valid {
		got, err := ParseRule(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		// String writes what ParseRule reads.
		if again, err := ParseRule(got.String()); err != nil || again != got {
			t.Errorf("ParseRule(%q.String() = %q) = %+v, %v", tt.in, got.String(), again, err)
		}
	}
	for _, in := range []string{"", "50", "a,100", "50,b", "0,100", "50,0", "-1,5", "5/,5", "5/x,5", "5/-1s,5", "50,100,7"} {
		if got, err := ParseRule(in); err == nil {
			t.Errorf("ParseRule(%q) = %+v, want an error", in, got)
		}
	}
}
