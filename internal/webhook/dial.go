package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ErrNotPublic is the cause of a connection refused because the address
// being dialled is not public (D51). Test it with errors.Is.
var ErrNotPublic = errors.New("address is not public")

// dialer opens the TCP connections of the Client: it resolves host names
// with the configured Resolver and dials the answers one after another.
// Whether an address may be reached is decided by the net.Dialer's Control
// hook, on the exact address of each socket about to connect, so an answer
// that changed since registration (DNS rebinding) gets no connection.
type dialer struct {
	resolver Resolver
	net      net.Dialer
}

// newDialer returns a dialer that refuses non-public addresses unless
// allowPrivate.
func newDialer(resolver Resolver, allowPrivate bool) *dialer {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	d := &dialer{resolver: resolver}
	if !allowPrivate {
		d.net.Control = refuseNonPublic
	}
	return d
}

// DialContext has the signature http.Transport wants. addr is "host:port"
// where host is the canonical host of the URL (see parseTarget).
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	ips, err := d.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, ip := range ips {
		conn, err := d.net.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// lookup returns the addresses of host: itself when it is an IP literal,
// else what the resolver answers.
func (d *dialer) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	answers, err := d.resolver.LookupHost(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	ips := make([]netip.Addr, 0, len(answers))
	for _, a := range answers {
		if ip, err := netip.ParseAddr(a); err == nil {
			ips = append(ips, ip)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no address", host)
	}
	return ips, nil
}

// refuseNonPublic is the net.Dialer Control hook: it runs after the socket
// is created and before connect(2), with the numeric address being dialled,
// so nothing reaches a refused address, not even a SYN.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read %q", ErrNotPublic, address)
	}
	if !IsPublicIP(ap.Addr()) {
		return fmt.Errorf("%w: %s (D51)", ErrNotPublic, ap.Addr())
	}
	return nil
}
