package health

import (
	"slices"
	"strings"
	"testing"
)

func TestParseListsReadsTheSetting(t *testing.T) {
	t.Parallel()
	got, err := ParseLists(" ip:zen.spamhaus.org , DOMAIN:DBL.Spamhaus.org. ,ip:bl.spamcop.net")
	if err != nil {
		t.Fatalf("ParseLists: %v", err)
	}
	want := []List{
		{Zone: "zen.spamhaus.org", Kind: KindIP},
		{Zone: "dbl.spamhaus.org", Kind: KindDomain},
		{Zone: "bl.spamcop.net", Kind: KindIP},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ParseLists = %v, want %v", got, want)
	}
}

func TestParseListsEmptyMeansDefaultsAndNoneDisables(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "  "} {
		got, err := ParseLists(s)
		if err != nil || !slices.Equal(got, DefaultLists()) {
			t.Errorf("ParseLists(%q) = %v, %v; want the defaults", s, got, err)
		}
	}
	for _, s := range []string{"none", " NONE "} {
		got, err := ParseLists(s)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("ParseLists(%q) = %#v, %v; want an empty, non-nil list", s, got, err)
		}
	}
}

// TestDefaultListsRoundTrip checks the defaults are valid settings
// themselves, with both kinds represented.
func TestDefaultListsRoundTrip(t *testing.T) {
	t.Parallel()
	defaults := DefaultLists()
	var parts []string
	kinds := map[string]int{}
	for _, l := range defaults {
		parts = append(parts, l.String())
		kinds[l.Kind]++
	}
	got, err := ParseLists(strings.Join(parts, ","))
	if err != nil || !slices.Equal(got, defaults) {
		t.Fatalf("ParseLists(defaults) = %v, %v", got, err)
	}
	if kinds[KindIP] == 0 || kinds[KindDomain] == 0 {
		t.Errorf("defaults lack a kind: %v", kinds)
	}
}

func TestParseListsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		setting string
		want    string // part of the error message
	}{
		{"zen.spamhaus.org", "want kind:zone"},
		{"url:multi.surbl.org", `kind "url"`},
		{"ip:", "not a valid domain"},
		{"ip:localhost", "not a valid domain"},
		{"ip:bad_zone.example", "not a valid domain"},
		{"domain:192.0.2.1", "not a valid domain"},
		{"ip:zen.spamhaus.org,", "empty entry"},
		{"ip:zen.spamhaus.org,,domain:dbl.spamhaus.org", "empty entry"},
		{"ip:zen.spamhaus.org,IP:Zen.Spamhaus.org", "listed twice"},
	}
	for _, tt := range tests {
		got, err := ParseLists(tt.setting)
		if err == nil {
			t.Errorf("ParseLists(%q) = %v, want an error", tt.setting, got)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "health: DNSBL list") {
			t.Errorf("ParseLists(%q) error %q, want it to contain %q", tt.setting, err, tt.want)
		}
	}
}

// TestParseListsAllowsOneZoneOfEachKind: the same zone queried by IP and by
// domain is two different lists (Spamhaus serves both kinds from zen and
// dbl, but a private list may serve both from one zone).
func TestParseListsAllowsOneZoneOfEachKind(t *testing.T) {
	t.Parallel()
	got, err := ParseLists("ip:bl.example.net,domain:bl.example.net")
	if err != nil || len(got) != 2 {
		t.Errorf("ParseLists = %v, %v; want two lists", got, err)
	}
}
