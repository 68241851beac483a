package bounce

import (
	"bytes"
	"strings"
)

// field is one header field; name is lowercased, value unfolded.
type field struct {
	name, value string
}

// header is a header block in its original order. The same shape serves
// message headers and the field blocks of delivery-status and
// feedback-report parts, which use header syntax too.
type header []field

// get returns the first value of name (lowercase), or "".
func (h header) get(name string) string {
	for _, f := range h {
		if f.name == name {
			return f.value
		}
	}
	return ""
}

// values returns every value of name (lowercase), in order.
func (h header) values(name string) []string {
	var out []string
	for _, f := range h {
		if f.name == name {
			out = append(out, f.value)
		}
	}
	return out
}

// has reports whether a field named name (lowercase) is present.
func (h header) has(name string) bool {
	for _, f := range h {
		if f.name == name {
			return true
		}
	}
	return false
}

// parseHeader reads a header block from the start of b up to the first
// empty line and returns it with the rest of b (the body). It accepts CRLF
// and bare LF, unfolds continuation lines, and skips lines that are not
// fields (an mbox "From " line, junk) instead of failing: a bounce with one
// broken header line is still a bounce.
func parseHeader(b []byte) (header, []byte) {
	var h header
	// Each field's raw text (first line plus continuations) is collected as
	// one span of b and unfolded once, so long folded fields cost linear
	// time.
	start, end := -1, -1
	flush := func() {
		if start < 0 {
			return
		}
		line := b[start:end]
		colon := bytes.IndexByte(line, ':')
		name := strings.ToLower(string(bytes.TrimSpace(line[:colon])))
		h = append(h, field{name: name, value: unfold(line[colon+1:])})
		start = -1
	}
	pos := 0
	for pos < len(b) {
		next := bytes.IndexByte(b[pos:], '\n')
		lineEnd := len(b)
		if next >= 0 {
			lineEnd = pos + next
		}
		line := bytes.TrimSuffix(b[pos:lineEnd], []byte("\r"))
		nextPos := lineEnd + 1
		if next < 0 {
			nextPos = len(b)
		}
		switch {
		case len(bytes.TrimSpace(line)) == 0:
			// A whitespace-only line ends the block too: generators put
			// them between DSN recipient blocks.
			flush()
			return h, b[nextPos:]
		case line[0] == ' ' || line[0] == '\t':
			if start >= 0 {
				end = pos + len(line)
			}
		case isFieldLine(line):
			flush()
			start, end = pos, pos+len(line)
		default:
			flush()
		}
		pos = nextPos
	}
	flush()
	return h, nil
}

// isFieldLine reports whether line starts a header field: a name of
// printable characters without spaces, then a colon.
func isFieldLine(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	name := bytes.TrimRight(line[:colon], " \t") // "Subject :" occurs in the wild
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// unfold joins a folded field value into one line: every run of
// whitespace (line breaks included) becomes a single space.
func unfold(v []byte) string {
	return strings.Join(strings.Fields(string(v)), " ")
}

// parseBlocks reads consecutive header blocks separated by empty lines, the
// layout of message/delivery-status (one per-message block, then one block
// per recipient).
func parseBlocks(b []byte) []header {
	var blocks []header
	for len(b) > 0 {
		b = skipBlankLines(b)
		if len(b) == 0 {
			break
		}
		var h header
		h, b = parseHeader(b)
		if len(h) > 0 {
			blocks = append(blocks, h)
		}
	}
	return blocks
}

// skipBlankLines drops leading lines that hold only whitespace.
func skipBlankLines(b []byte) []byte {
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		line := b
		if nl >= 0 {
			line = b[:nl]
		}
		if len(bytes.TrimSpace(line)) != 0 {
			return b
		}
		if nl < 0 {
			return nil
		}
		b = b[nl+1:]
	}
	return b
}
