package mailauth

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"

	"blitiri.com.ar/go/spf"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-msgauth/dmarc"
	"golang.org/x/net/publicsuffix"
)

// Result words, as in an Authentication-Results header (RFC 8601).
const (
	Pass      = "pass"
	Fail      = "fail"
	None      = "none"
	TempError = "temperror"
	PermError = "permerror"
)

// maxSignatures bounds the DKIM signatures verified (each costs DNS and
// RSA work an attacker chooses).
const maxSignatures = 5

// Input is one received message and how it came.
type Input struct {
	// ClientIP is the connecting SMTP client's address.
	ClientIP net.IP
	// Helo is the name the client gave in EHLO/HELO.
	Helo string
	// MailFrom is the envelope sender, "" for the null sender.
	MailFrom string
	// FromDomain is the domain of the message's From header; "" when it
	// has none or several, which makes DMARC none.
	FromDomain string
	Raw        []byte
}

// Results are the three outcomes and the domains they are about.
type Results struct {
	SPF        string
	SPFDomain  string
	DKIM       string
	DKIMDomain string // the first domain that passed, else the first signer
	DMARC      string
	// Header is an Authentication-Results value naming authServID.
	Header string
}

// Evaluate runs the three checks.
func Evaluate(ctx context.Context, r Resolver, authServID string, in Input) Results {
	nr := netResolver{r: r}
	var res Results
	res.SPF, res.SPFDomain = checkSPF(ctx, nr, in)
	var passed []string
	res.DKIM, res.DKIMDomain, passed = checkDKIM(ctx, nr, in.Raw)
	res.DMARC = checkDMARC(ctx, nr, in.FromDomain, res, passed)
	res.Header = fmt.Sprintf("%s; spf=%s smtp.mailfrom=%s; dkim=%s%s; dmarc=%s header.from=%s", authServID,
		res.SPF, orNone(res.SPFDomain), res.DKIM, headerD(res.DKIMDomain), res.DMARC, orNone(in.FromDomain))
	return res
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func headerD(d string) string {
	if d == "" {
		return ""
	}
	return " header.d=" + d
}

// checkSPF evaluates the envelope sender's domain, or the HELO name for
// the null sender (RFC 7208 2.4).
func checkSPF(ctx context.Context, nr netResolver, in Input) (string, string) {
	domain := in.Helo
	if at := strings.LastIndexByte(in.MailFrom, '@'); at >= 0 {
		domain = in.MailFrom[at+1:]
	}
	domain = strings.ToLower(strings.TrimSuffix(domain, "."))
	if in.ClientIP == nil || domain == "" {
		return None, domain
	}
	result, _ := spf.CheckHostWithSender(in.ClientIP, in.Helo, in.MailFrom,
		spf.WithContext(ctx), spf.WithResolver(nr))
	return string(result), domain
}

// checkDKIM verifies the signatures: pass when one passes, else fail when
// one fails, temperror when a key could not be fetched, none without any.
// passed lists the domains whose signatures passed, for DMARC.
func checkDKIM(ctx context.Context, nr netResolver, raw []byte) (string, string, []string) {
	verifs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{
		LookupTXT:        func(domain string) ([]string, error) { return nr.LookupTXT(ctx, domain) },
		MaxVerifications: maxSignatures,
	})
	if err != nil && len(verifs) == 0 {
		return PermError, "", nil
	}
	if len(verifs) == 0 {
		return None, "", nil
	}
	var passed []string
	result, domain := "", verifs[0].Domain
	for _, v := range verifs {
		switch {
		case v.Err == nil:
			passed = append(passed, strings.ToLower(v.Domain))
		case dkim.IsTempFail(v.Err):
			if result == "" {
				result = TempError
			}
		default:
			result = Fail
		}
	}
	if len(passed) > 0 {
		return Pass, passed[0], passed
	}
	return result, domain, nil
}

// checkDMARC looks the policy of the From domain up (falling back to its
// organizational domain, RFC 7489 6.6.3) and passes when SPF or DKIM
// passed for a domain aligned with it, as the policy's aspf and adkim say.
func checkDMARC(ctx context.Context, nr netResolver, fromDomain string, res Results, dkimPassed []string) string {
	fromDomain = strings.ToLower(strings.TrimSuffix(fromDomain, "."))
	if fromDomain == "" {
		return None
	}
	lookup := &dmarc.LookupOptions{LookupTXT: func(domain string) ([]string, error) { return nr.LookupTXT(ctx, domain) }}
	record, err := dmarc.LookupWithOptions(fromDomain, lookup)
	org := orgDomain(fromDomain)
	if err == dmarc.ErrNoPolicy && org != fromDomain {
		record, err = dmarc.LookupWithOptions(org, lookup)
	}
	switch {
	case err == dmarc.ErrNoPolicy:
		return None
	case dmarc.IsTempFail(err):
		return TempError
	case err != nil:
		return PermError
	}
	if res.SPF == Pass && aligned(res.SPFDomain, fromDomain, record.SPFAlignment) {
		return Pass
	}
	for _, d := range dkimPassed {
		if aligned(d, fromDomain, record.DKIMAlignment) {
			return Pass
		}
	}
	return Fail
}

// aligned compares an authenticated domain with the From domain: exactly
// in strict mode, by organizational domain in relaxed mode (the default).
func aligned(domain, fromDomain string, mode dmarc.AlignmentMode) bool {
	domain = strings.ToLower(strings.TrimSuffix(domain, "."))
	if mode == dmarc.AlignmentStrict {
		return domain == fromDomain
	}
	return orgDomain(domain) == orgDomain(fromDomain)
}

// orgDomain is the registered domain (public suffix plus one label), or
// the name itself when the list cannot tell.
func orgDomain(name string) string {
	if org, err := publicsuffix.EffectiveTLDPlusOne(name); err == nil {
		return org
	}
	return name
}
