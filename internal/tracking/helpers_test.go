package tracking

import (
	"testing"

	"github.com/carteiro/carteiro/internal/secrets"
)

// testBase is the public URL the tests instrument with.
const testBase = "https://t.example"

// testEmailID is the email the tests' tokens are for.
const testEmailID = "em_0123456789abcdef"

// newSigner returns a real secrets.Box, the Signer the service uses.
func newSigner(t testing.TB, secret string) *secrets.Box {
	t.Helper()
	box, err := secrets.NewBox(secret)
	if err != nil {
		t.Fatalf("secrets.NewBox: %v", err)
	}
	return box
}

const (
	testSecret  = "tracking-test-secret-0123456789abcdef"
	otherSecret = "another-secret-entirely-0123456789abcd"
)

// clickURL is the redirect URL Instrument must write for destination.
func clickURL(s Signer, destination string) string {
	return testBase + "/t/c/" + ClickToken(s, testEmailID, destination)
}

// expectedPixel is the open pixel tag Instrument must add.
func expectedPixel(s Signer) string {
	return `<img src="` + testBase + "/t/o/" + OpenToken(s, testEmailID) +
		`" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0;" />`
}
