package store

import (
	"bytes"
	"testing"

	"github.com/carteiro/carteiro"
)

// encodeAttachments writes the content itself (D60); what it writes must
// read back whole through decodeAttachments.
func TestEncodeAttachmentsRoundTrips(t *testing.T) {
	in := []carteiro.Attachment{
		{Filename: `a "quoted" name.pdf`, ContentType: "application/pdf", Disposition: "attachment", Content: []byte("one")},
		{Filename: "logo.png", ContentType: "image/png", Disposition: "inline", CID: "logo@x", Content: bytes.Repeat([]byte{0xff, 0, 7}, 1000)},
		{Filename: "odd.bin", ContentType: "application/octet-stream", Disposition: "attachment", Content: []byte{1, 2}},
	}
	out, err := decodeAttachments(encodeAttachments(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d attachments back, want %d", len(out), len(in))
	}
	for i := range in {
		if out[i].Filename != in[i].Filename || out[i].ContentType != in[i].ContentType || out[i].Disposition != in[i].Disposition ||
			out[i].CID != in[i].CID || !bytes.Equal(out[i].Content, in[i].Content) {
			t.Errorf("attachment %d: %+v, want %+v", i, out[i], in[i])
		}
	}
	if encodeAttachments(nil) != nil {
		t.Error("no attachments should be NULL")
	}
}
