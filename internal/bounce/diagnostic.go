package bounce

import (
	"strconv"
	"strings"
)

// cleanDiagnostic turns a remote server's reply, unfolded to one line,
// into readable text: a multi-line reply repeats its codes on every line
// ("550-5.1.1 The email account ... 550-5.1.1 double-checking ..."), and
// those repeats are dropped after the first. The result is bounded to
// maxDiagnostic bytes.
func cleanDiagnostic(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r, ok := findReply(s)
	if ok && r.start == 0 && r.code != 0 && r.status != "" {
		code := strconv.Itoa(r.code)
		first := strings.Index(s, r.status) + len(r.status)
		rest := s[first:]
		for _, sep := range []string{"-", " "} {
			rest = strings.ReplaceAll(rest, " "+code+sep+r.status+" ", " ")
			rest = strings.TrimSuffix(rest, " "+code+sep+r.status)
		}
		s = s[:first] + rest
		s = strings.Join(strings.Fields(s), " ")
	}
	return trimDiagnostic(s)
}

// trimDiagnostic bounds s to maxDiagnostic bytes without splitting a UTF-8
// sequence.
func trimDiagnostic(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxDiagnostic {
		return s
	}
	cut := maxDiagnostic
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// replyText returns the reply that starts at offset start of text: the
// rest of its line, then following lines that continue it (lines that
// begin with the same basic code, as multi-line SMTP replies do).
func replyText(text string, start, code int) string {
	end := lineEnd(text, start)
	lines := []string{clip(text[start:end])}
	prefix := strconv.Itoa(code)
	for end < len(text) && code != 0 && len(lines) < 20 {
		next := end + 1
		nextEnd := lineEnd(text, next)
		line := strings.TrimSpace(clip(text[next:nextEnd]))
		if !strings.HasPrefix(line, prefix+"-") && !strings.HasPrefix(line, prefix+" ") {
			break
		}
		lines = append(lines, line)
		end = nextEnd
	}
	joined := strings.TrimRight(strings.Join(lines, " "), " ")
	// Exchange frames its replies in "#...##" or quotes them ('...').
	if start > 0 && (text[start-1] == '\'' || text[start-1] == '"') {
		joined = strings.TrimSuffix(joined, text[start-1:start])
	}
	return cleanDiagnostic(strings.TrimRight(joined, " #"))
}

// clip bounds a line taken into a diagnostic, so that reading one
// recipient's reply costs at most a few kilobytes however long the line.
func clip(line string) string {
	if len(line) > 2*maxDiagnostic {
		return line[:2*maxDiagnostic]
	}
	return line
}

// lineEnd returns the offset of the line break ending the line that holds
// offset i, or len(text).
func lineEnd(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if n := strings.IndexByte(text[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(text)
}
