package main

import (
	"strconv"
)

// maxBatch is the largest batch POST /emails/batch takes (api-v1), and
// the default size of the batch and e2e scenarios.
const maxBatch = 100

// appendEmail appends the JSON of benchmark email n: one recipient, a
// subject and a small HTML body. It is built by hand rather than with
// encoding/json because the load generator shares the machine's two cores
// with the server and should cost as little as it can.
func appendEmail(b []byte, n int64, domain string) []byte {
	num := strconv.AppendInt(nil, n, 10)
	b = append(b, `{"from":"Bench <bench@`+sendingDomain+`>","to":["user`...)
	b = append(b, num...)
	b = append(b, '@')
	b = append(b, domain...)
	b = append(b, `"],"subject":"Benchmark email `...)
	b = append(b, num...)
	b = append(b, `","html":"<p>Hello user `...)
	b = append(b, num...)
	b = append(b, `,</p><p>this is benchmark email number `...)
	b = append(b, num...)
	b = append(b, ` from Carteiro.</p>"}`...)
	return b
}

// defaultRecipientDomain receives every email, but in the direct scenario.
const defaultRecipientDomain = "sink.example"

// recipientDomain is email n's recipient domain: one of domains in turn,
// or defaultRecipientDomain without any.
func recipientDomain(domains []string, n int64) string {
	if len(domains) == 0 {
		return defaultRecipientDomain
	}
	return domains[n%int64(len(domains))]
}

// appendBatch appends a JSON array of count emails numbered from first,
// their recipients at domains in turn (recipientDomain).
func appendBatch(b []byte, first int64, count int, domains []string) []byte {
	b = append(b, '[')
	for i := range count {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEmail(b, first+int64(i), recipientDomain(domains, first+int64(i)))
	}
	return append(b, ']')
}
