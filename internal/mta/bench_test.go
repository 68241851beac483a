package mta

import (
	"strings"
	"testing"
)

// BenchmarkBuildAndSign measures the per-email CPU cost before SMTP: a
// typical transactional message (text and HTML of a few kilobytes, a small
// inline logo and a PDF) built and signed with RSA-2048. The signature
// itself (about 1 ms) should dominate.
func BenchmarkBuildAndSign(b *testing.B) {
	m := sampleMessage()
	m.HTML = strings.Repeat(`<tr><td style="padding:8px">Item</td><td>R$ 10,00</td></tr>`+"\n", 80)
	m.Text = strings.Repeat("Item ........ R$ 10,00\n", 80)
	signer := &DKIMSigner{Domain: "example.com", Selector: "cart1", Key: mustKey(b).signer}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		raw, err := Build(m)
		if err != nil {
			b.Fatal(err)
		}
		signed, err := signer.Sign(raw)
		if err != nil {
			b.Fatal(err)
		}
		size = len(signed)
	}
	b.ReportMetric(float64(size), "bytes/msg")
}

// BenchmarkBuild isolates the MIME building.
func BenchmarkBuild(b *testing.B) {
	m := sampleMessage()
	m.HTML = strings.Repeat(`<tr><td style="padding:8px">Item</td><td>R$ 10,00</td></tr>`+"\n", 80)
	m.Text = strings.Repeat("Item ........ R$ 10,00\n", 80)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(m); err != nil {
			b.Fatal(err)
		}
	}
}
