package mta

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-msgauth/dkim"
)

// signedHeaders are the fields covered by the signature when present (RFC
// 6376 section 5.4.1, plus the one-click unsubscribe pair of D43, which
// mailbox providers only honour when signed).
var signedHeaders = []string{
	"From", "To", "Cc", "Reply-To", "Subject", "Date", "Message-ID",
	"MIME-Version", "Content-Type", "List-Unsubscribe", "List-Unsubscribe-Post",
}

// overSigned are listed once more than they occur, so that a header of that
// name added after signing (a second From, a rewritten Subject above the
// original) breaks the signature instead of being displayed as signed.
var overSigned = map[string]bool{
	"from": true, "to": true, "cc": true, "reply-to": true, "subject": true,
	"date": true, "message-id": true, "list-unsubscribe": true, "list-unsubscribe-post": true,
}

// DKIMSigner signs messages for one domain with one key (D31): rsa-sha256
// (or ed25519-sha256 for an Ed25519 key), relaxed/relaxed canonicalization.
type DKIMSigner struct {
	// Domain is the d= tag, the domain whose DNS publishes the key.
	Domain string
	// Selector is the s= tag: the key is at <Selector>._domainkey.<Domain>.
	Selector string
	// Key is the private key, as returned by dkim.ParsePrivateKey.
	Key crypto.Signer
}

// Sign returns raw with a DKIM-Signature header prepended. raw must be a
// complete message with CRLF line endings, as Build makes.
func (s *DKIMSigner) Sign(raw []byte) ([]byte, error) {
	if s == nil || s.Key == nil || s.Domain == "" || s.Selector == "" {
		return nil, errors.New("mta: dkim: domain, selector and key are required")
	}
	keys, err := headerKeys(raw)
	if err != nil {
		return nil, err
	}
	signer, err := dkim.NewSigner(&dkim.SignOptions{
		Domain:                 s.Domain,
		Selector:               s.Selector,
		Signer:                 s.Key,
		Hash:                   crypto.SHA256,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed,
		BodyCanonicalization:   dkim.CanonicalizationRelaxed,
		HeaderKeys:             keys,
	})
	if err != nil {
		return nil, fmt.Errorf("mta: dkim: %w", err)
	}
	if _, err := signer.Write(raw); err != nil {
		_ = signer.Close()
		return nil, fmt.Errorf("mta: dkim: %w", err)
	}
	if err := signer.Close(); err != nil {
		return nil, fmt.Errorf("mta: dkim: %w", err)
	}
	signature := signer.Signature()
	out := make([]byte, 0, len(signature)+len(raw))
	out = append(out, signature...)
	return append(out, raw...), nil
}

// headerKeys lists the signedHeaders present in raw's header section, each
// as many times as it occurs, plus once more for the overSigned ones.
func headerKeys(raw []byte) ([]string, error) {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return nil, errors.New("mta: dkim: message has no header/body separator")
	}
	counts := make(map[string]int)
	for line := range bytes.SplitSeq(raw[:end+2], []byte("\r\n")) {
		if len(line) == 0 || line[0] == ' ' || line[0] == '\t' {
			continue // a continuation line
		}
		name, _, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("mta: dkim: malformed header line %q", truncate(string(line), 40))
		}
		counts[strings.ToLower(strings.TrimSpace(string(name)))]++
	}
	if counts["from"] == 0 {
		return nil, errors.New("mta: dkim: message has no From header")
	}
	var keys []string
	for _, name := range signedHeaders {
		n := counts[strings.ToLower(name)]
		if n > 0 && overSigned[strings.ToLower(name)] {
			n++
		}
		for range n {
			keys = append(keys, name)
		}
	}
	return keys, nil
}

// truncate shortens s for error messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
