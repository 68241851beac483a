// Package mailauth evaluates SPF (RFC 7208), DKIM (RFC 6376) and DMARC
// (RFC 7489) for a received message (D75), with the libraries made for it
// (blitiri.com.ar/go/spf, emersion/go-msgauth), every look-up going
// through the resolver the service uses (CARTEIRO_DNS_SERVER in tests).
package mailauth

import (
	"context"
	"errors"
	"net"

	"github.com/carteiro/carteiro/internal/dnscheck"
)

// Resolver is what the checks look up; *dnscheck.Resolver has it.
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupHost(ctx context.Context, name string) ([]string, error)
}

// netResolver gives Resolver the shape of net.Resolver that the libraries
// take, with its errors as *net.DNSError, which is how they tell "no such
// record" (a result) from a failed look-up (temperror).
type netResolver struct{ r Resolver }

func (n netResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	txt, err := n.r.LookupTXT(ctx, name)
	return txt, dnsError(name, err)
}

func (n netResolver) LookupMX(ctx context.Context, name string) ([]*net.MX, error) {
	mxs, err := n.r.LookupMX(ctx, name)
	return mxs, dnsError(name, err)
}

func (n netResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	hosts, err := n.r.LookupHost(ctx, host)
	if err != nil {
		return nil, dnsError(host, err)
	}
	out := make([]net.IPAddr, 0, len(hosts))
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			out = append(out, net.IPAddr{IP: ip})
		}
	}
	return out, nil
}

// LookupAddr answers nothing: the ptr mechanism is deprecated (RFC 7208
// 5.5) and a PTR look-up of a sender's address is not worth a query.
func (n netResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	return nil, &net.DNSError{Err: "PTR not looked up", Name: addr, IsNotFound: true}
}

// dnsError converts dnscheck's errors to *net.DNSError.
func dnsError(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, dnscheck.ErrNotFound):
		return &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
	case errors.Is(err, dnscheck.ErrTemporary):
		return &net.DNSError{Err: err.Error(), Name: name, IsTemporary: true}
	}
	return &net.DNSError{Err: err.Error(), Name: name}
}
