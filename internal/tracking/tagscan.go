package tracking

// attribute locates one attribute inside the raw bytes of a start tag.
type attribute struct {
	nameStart, nameEnd int
	// valueStart and valueEnd bound the raw value without its quotes; they
	// are equal when the attribute has no value.
	valueStart, valueEnd int
	// quote is '"' or '\'' for a quoted value, 0 for an unquoted one or none.
	quote byte
	// end is just past the attribute: past its closing quote, its unquoted
	// value, or its name when it has no value.
	end int
}

// scanAttributes finds the attributes of a raw start tag ("<a href=x>"), as
// returned by the tokenizer's Raw. It follows golang.org/x/net/html's own
// tag reading (readTag, readTagAttrKey, readTagAttrVal) step by step, so the
// offsets it gives are those of the attributes the tokenizer reports; the
// tokenizer does not expose them itself. Duplicates and empty names are
// returned too: callers pick the first occurrence, as the tokenizer does.
func scanAttributes(tag string) []attribute {
	if len(tag) < 2 || tag[0] != '<' {
		return nil
	}
	s := tagScanner{tag: tag, pos: 2} // "<" and the first letter of the name are read
	s.skipTagName()
	s.skipSpace()
	var attrs []attribute
	for {
		c, ok := s.next()
		if !ok || c == '>' {
			return attrs
		}
		s.pos--
		var a attribute
		s.readName(&a)
		s.readValue(&a)
		attrs = append(attrs, a)
		s.skipSpace()
	}
}

// tagScanner reads a raw tag byte by byte; reading past its end plays the
// part of the tokenizer's EOF.
type tagScanner struct {
	tag string
	pos int
}

func (s *tagScanner) next() (byte, bool) {
	if s.pos >= len(s.tag) {
		return 0, false
	}
	c := s.tag[s.pos]
	s.pos++
	return c, true
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

func (s *tagScanner) skipSpace() {
	for s.pos < len(s.tag) && isHTMLSpace(s.tag[s.pos]) {
		s.pos++
	}
}

// skipTagName mirrors readTagName: the name ends at a space (consumed) or
// before '/' or '>'.
func (s *tagScanner) skipTagName() {
	for {
		c, ok := s.next()
		if !ok || isHTMLSpace(c) {
			return
		}
		if c == '/' || c == '>' {
			s.pos--
			return
		}
	}
}

// readName mirrors readTagAttrKey: a leading '=' belongs to the name; the
// name ends before a space, '/', '>' or a later '='.
func (s *tagScanner) readName(a *attribute) {
	a.nameStart = s.pos
	for {
		c, ok := s.next()
		if !ok {
			break
		}
		if c == '=' && s.pos == a.nameStart+1 {
			continue
		}
		if c == '=' || c == '/' || c == '>' || isHTMLSpace(c) {
			s.pos--
			break
		}
	}
	a.nameEnd = s.pos
	a.end = s.pos
}

// readValue mirrors readTagAttrVal.
func (s *tagScanner) readValue(a *attribute) {
	a.valueStart, a.valueEnd = s.pos, s.pos
	s.skipSpace()
	c, ok := s.next()
	if !ok || c == '/' {
		return
	}
	if c != '=' {
		s.pos--
		return
	}
	s.skipSpace()
	quote, ok := s.next()
	if !ok {
		a.valueStart, a.valueEnd, a.end = s.pos, s.pos, s.pos
		return
	}
	switch quote {
	case '>':
		s.pos--
		a.valueStart, a.valueEnd, a.end = s.pos, s.pos, s.pos
	case '\'', '"':
		a.quote = quote
		a.valueStart = s.pos
		for {
			c, ok := s.next()
			if !ok {
				a.valueEnd, a.end = s.pos, s.pos
				return
			}
			if c == quote {
				a.valueEnd, a.end = s.pos-1, s.pos
				return
			}
		}
	default:
		a.valueStart = s.pos - 1
		for {
			c, ok := s.next()
			if !ok {
				a.valueEnd = s.pos
				break
			}
			if isHTMLSpace(c) {
				a.valueEnd = s.pos - 1
				break
			}
			if c == '>' {
				s.pos--
				a.valueEnd = s.pos
				break
			}
		}
		a.end = a.valueEnd
	}
}

// name returns the attribute's name lowercased (ASCII only, like the
// tokenizer).
func (a attribute) name(tag string) string {
	raw := tag[a.nameStart:a.nameEnd]
	for i := 0; i < len(raw); i++ {
		if 'A' <= raw[i] && raw[i] <= 'Z' {
			b := []byte(raw)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return raw
}
