package bounce

import (
	"bytes"
	"mime"
	"strings"
)

// part is one node of a parsed MIME message. A multipart node has its
// subparts as children; a message/rfc822 (or message/global) node has the
// enclosed message as its single child; every other node is a leaf whose
// body is decoded from its transfer encoding.
type part struct {
	header    header
	mediaType string            // lowercased, "text/plain" when absent
	params    map[string]string // Content-Type parameters, keys lowercased
	body      []byte            // decoded body (undecoded for multipart)
	children  []*part
}

// partBudget counts parts across the whole tree so that MaxParts holds for
// any shape of nesting.
type partBudget struct {
	left int
}

// take uses one part of the budget, reporting false when none is left.
func (b *partBudget) take() bool {
	if b.left <= 0 {
		return false
	}
	b.left--
	return true
}

// parseMessage parses raw (already capped at MaxInputSize) into a tree of
// at most MaxParts parts.
func parseMessage(raw []byte) *part {
	budget := &partBudget{left: MaxParts}
	budget.take() // the root
	return parsePart(raw, 0, budget)
}

// parsePart parses one entity: header, then body by media type.
func parsePart(raw []byte, depth int, budget *partBudget) *part {
	h, body := parseHeader(raw)
	p := &part{header: h}
	p.mediaType, p.params = mediaTypeOf(h.get("content-type"))
	cte := h.get("content-transfer-encoding")
	switch {
	case strings.HasPrefix(p.mediaType, "multipart/"):
		p.body = body
		if boundary := p.params["boundary"]; boundary != "" && depth < maxDepth {
			for _, raw := range splitMultipart(body, boundary) {
				if !budget.take() {
					break
				}
				p.children = append(p.children, parsePart(raw, depth+1, budget))
			}
		}
	case isEnclosedMessage(p.mediaType):
		// message/rfc822 must not be encoded, but some generators
		// base64 it anyway.
		p.body = decodeTransfer(cte, body)
		if depth < maxDepth && budget.take() {
			p.children = []*part{parsePart(p.body, depth+1, budget)}
		}
	default:
		p.body = decodeTransfer(cte, body)
	}
	return p
}

// isEnclosedMessage reports whether mediaType carries a whole message.
func isEnclosedMessage(mediaType string) bool {
	return mediaType == "message/rfc822" || mediaType == "message/global"
}

// isHeadersOnly reports whether mediaType carries only the header of a
// message (RFC 6522 text/rfc822-headers; RFC 6533 message/global-headers;
// message/rfc822-headers is a common misspelling).
func isHeadersOnly(mediaType string) bool {
	switch mediaType {
	case "text/rfc822-headers", "message/rfc822-headers", "message/global-headers":
		return true
	}
	return false
}

// mediaTypeOf parses a Content-Type value leniently: a malformed parameter
// list keeps the media type and, when it can be found, the boundary.
func mediaTypeOf(ct string) (string, map[string]string) {
	if strings.TrimSpace(ct) == "" {
		return "text/plain", map[string]string{}
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil || mediaType == "" {
		mediaType = strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
		params = map[string]string{}
		if b := looseParam(ct, "boundary"); b != "" {
			params["boundary"] = b
		}
		if r := looseParam(ct, "report-type"); r != "" {
			params["report-type"] = strings.ToLower(r)
		}
	}
	return mediaType, params
}

// looseParam finds name=value in a Content-Type value that
// mime.ParseMediaType rejected; value may be quoted.
func looseParam(ct, name string) string {
	i := strings.Index(asciiLower(ct), name+"=") // asciiLower keeps offsets
	if i < 0 {
		return ""
	}
	v := ct[i+len(name)+1:]
	if strings.HasPrefix(v, `"`) {
		v = v[1:]
		if end := strings.IndexByte(v, '"'); end >= 0 {
			return v[:end]
		}
		return ""
	}
	if end := strings.IndexAny(v, "; \t"); end >= 0 {
		v = v[:end]
	}
	return v
}

// splitMultipart returns the bodies of the parts of a multipart body,
// ignoring preamble and epilogue. A delimiter is a line that is "--"
// boundary, optionally followed by whitespace; the close delimiter adds
// "--". A missing close delimiter ends the last part at the end of body.
func splitMultipart(body []byte, boundary string) [][]byte {
	delim := []byte("--" + boundary)
	var parts [][]byte
	partStart := -1 // start of the current part's content, -1 before the first delimiter
	pos := 0
	for pos < len(body) {
		i := bytes.Index(body[pos:], delim)
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + len(delim)
		if at > 0 && body[at-1] != '\n' {
			continue // not at the start of a line
		}
		rest := body[pos:]
		closing := bytes.HasPrefix(rest, []byte("--"))
		if closing {
			rest = rest[2:]
		}
		lineEnd := bytes.IndexByte(rest, '\n')
		tail := rest
		if lineEnd >= 0 {
			tail = rest[:lineEnd]
		}
		if len(bytes.TrimSpace(tail)) != 0 {
			continue // a longer boundary that merely starts with ours
		}
		if partStart >= 0 {
			parts = append(parts, trimLineBreak(body[partStart:at]))
			if len(parts) >= MaxParts {
				return parts
			}
		}
		if closing {
			return parts
		}
		if lineEnd < 0 {
			return parts
		}
		partStart = len(body) - len(rest) + lineEnd + 1
		pos = partStart
	}
	if partStart >= 0 && partStart <= len(body) {
		parts = append(parts, body[partStart:])
	}
	return parts
}

// trimLineBreak removes the line break that belongs to the delimiter
// following a part.
func trimLineBreak(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// walk visits p and its descendants in document order. fn returns whether
// to descend into the node's children.
func (p *part) walk(fn func(*part) bool) {
	if !fn(p) {
		return
	}
	for _, c := range p.children {
		c.walk(fn)
	}
}
