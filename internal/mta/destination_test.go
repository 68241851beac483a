package mta

import (
	"testing"
)

func TestDestinationKeyIsTheMXRegisteredDomain(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"gmail-smtp-in.l.google.com":              "google.com",
		"ALT1.ASPMX.L.GOOGLE.COM.":                "google.com",
		"contoso-com.mail.protection.outlook.com": "outlook.com",
		"mta5.am0.yahoodns.net":                   "yahoodns.net",
		"mx.example.co.uk":                        "example.co.uk",
		"mx.dest-1.test":                          "dest-1.test",
		"192.0.2.7":                               "192.0.2.7",
		"co.uk":                                   "co.uk", // a public suffix is its own key
	} {
		if got := destinationKey(host); got != want {
			t.Errorf("destinationKey(%q) = %q, want %q", host, got, want)
		}
	}
}
