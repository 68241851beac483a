package mta

import (
	"bytes"
	"encoding/base64"
	"mime/quotedprintable"
)

// base64LineBytes is how many input bytes make one 76-character base64 line
// (RFC 2045 section 6.8).
const base64LineBytes = 57

// mimePart is one node of the MIME tree: a leaf with an encoded body, or a
// multipart container with children.
type mimePart struct {
	contentType string      // full Content-Type value, parameters included
	headers     [][2]string // further headers in order (encoding, disposition, id)
	body        []byte      // the encoded body of a leaf, CRLF line breaks
	children    []*mimePart // the parts of a multipart
	boundary    string      // set for a multipart
}

// textPart is a text/plain or text/html leaf in quoted-printable, which keeps
// every line under 77 characters whatever the input and turns bare LF, bare
// CR and CRLF alike into CRLF hard breaks.
func textPart(mediaType, text string) *mimePart {
	var buf bytes.Buffer
	buf.Grow(len(text) + len(text)/8)
	qp := quotedprintable.NewWriter(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = qp.Write([]byte(text))
	_ = qp.Close()
	return &mimePart{
		contentType: mediaType + "; charset=utf-8",
		headers:     [][2]string{{"Content-Transfer-Encoding", "quoted-printable"}},
		body:        buf.Bytes(),
	}
}

// base64Body encodes data in lines of 76 characters separated by CRLF (the
// CRLF after the last line comes from the following boundary delimiter).
func base64Body(data []byte) []byte {
	lines := (len(data) + base64LineBytes - 1) / base64LineBytes
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(data))+2*lines)
	for len(data) > 0 {
		if len(out) > 0 {
			out = append(out, '\r', '\n')
		}
		n := min(base64LineBytes, len(data))
		out = base64.StdEncoding.AppendEncode(out, data[:n])
		data = data[n:]
	}
	return out
}

// multipartOf builds a container of subtype ("mixed", "related",
// "alternative") around children. extra holds further Content-Type
// parameters such as related's type=.
func multipartOf(subtype, boundary, extra string, children ...*mimePart) *mimePart {
	ct := "multipart/" + subtype + "; boundary=\"" + boundary + "\""
	if extra != "" {
		ct += "; " + extra
	}
	return &mimePart{contentType: ct, children: children, boundary: boundary}
}

// writeHeaders writes the part's own headers (Content-Type first).
func (p *mimePart) writeHeaders(b *bytes.Buffer) error {
	if err := writeHeader(b, "Content-Type", p.contentType); err != nil {
		return err
	}
	for _, h := range p.headers {
		if err := writeHeader(b, h[0], h[1]); err != nil {
			return err
		}
	}
	return nil
}

// writeBody writes the part's body: a leaf's verbatim, a multipart's as its
// children between delimiters, ending with the close delimiter and CRLF.
// The CRLF before each delimiter belongs to the delimiter (RFC 2046 section
// 5.1.1), so it is always written: a text ending in a line break keeps it.
func (p *mimePart) writeBody(b *bytes.Buffer) error {
	if p.children == nil {
		b.Write(p.body)
		return nil
	}
	for _, child := range p.children {
		b.WriteString("--")
		b.WriteString(p.boundary)
		b.WriteString("\r\n")
		if err := child.writeHeaders(b); err != nil {
			return err
		}
		b.WriteString("\r\n")
		if err := child.writeBody(b); err != nil {
			return err
		}
		b.WriteString("\r\n")
	}
	b.WriteString("--")
	b.WriteString(p.boundary)
	b.WriteString("--\r\n")
	return nil
}
