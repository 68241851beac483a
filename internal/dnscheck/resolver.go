// Package dnscheck looks up DNS records through a configurable server
// (CARTEIRO_DNS_SERVER) and checks the records a customer publishes for a
// sender domain (D31, D32).
package dnscheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/miekg/dns"
)

// resolvConfPath is where the system resolver is configured.
const resolvConfPath = "/etc/resolv.conf"

// fallbackServer is used when resolv.conf is missing or lists no server, as
// the C library does.
const fallbackServer = "127.0.0.1:53"

// DefaultTimeout bounds one exchange with one server when NewResolver gets
// no positive timeout.
const DefaultTimeout = 5 * time.Second

// ednsUDPSize is the UDP payload size advertised with EDNS0: the value of
// DNS Flag Day 2020, which avoids IP fragmentation. Larger answers come back
// truncated and are asked again over TCP.
const ednsUDPSize = 1232

// Resolver asks one DNS server (or the system's servers in turn) directly,
// with recursion desired, so tests and operators choose exactly which server
// answers. It is safe for concurrent use.
type Resolver struct {
	servers []string
	timeout time.Duration
	udp     *dns.Client
	tcp     *dns.Client
}

// NewResolver returns a resolver asking server ("host:port"), or the
// nameservers of /etc/resolv.conf when server is "" (127.0.0.1:53 when that
// file gives none). timeout bounds each exchange; zero or less means
// DefaultTimeout.
func NewResolver(server string, timeout time.Duration) (*Resolver, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	servers, err := resolveServers(server)
	if err != nil {
		return nil, err
	}
	return &Resolver{
		servers: servers,
		timeout: timeout,
		udp:     &dns.Client{Net: "udp", Timeout: timeout, UDPSize: ednsUDPSize},
		tcp:     &dns.Client{Net: "tcp", Timeout: timeout},
	}, nil
}

// Servers returns the addresses asked, in order.
func (r *Resolver) Servers() []string { return append([]string(nil), r.servers...) }

// resolveServers validates an explicit server or reads the system's.
func resolveServers(server string) ([]string, error) {
	if server != "" {
		host, port, err := net.SplitHostPort(server)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("dnscheck: DNS server %q is not host:port", server)
		}
		return []string{server}, nil
	}
	config, err := dns.ClientConfigFromFile(resolvConfPath)
	if err != nil || len(config.Servers) == 0 {
		return []string{fallbackServer}, nil
	}
	servers := make([]string, 0, len(config.Servers))
	for _, s := range config.Servers {
		servers = append(servers, net.JoinHostPort(s, config.Port))
	}
	return servers, nil
}

// query asks for name and qtype and returns a NOERROR answer. NXDOMAIN is
// ErrNotFound; anything that is not an answer is ErrTemporary. The system's
// servers are tried in turn until one answers.
func (r *Resolver) query(ctx context.Context, name string, qtype uint16) (*dns.Msg, error) {
	fqdn := dns.Fqdn(name)
	if _, ok := dns.IsDomainName(fqdn); !ok || fqdn == "." {
		return nil, fmt.Errorf("dnscheck: invalid name %q", name)
	}
	req := new(dns.Msg)
	req.SetQuestion(fqdn, qtype)
	req.RecursionDesired = true
	req.SetEdns0(ednsUDPSize, false)

	typeName := dns.TypeToString[qtype]
	var lastErr error
	for _, server := range r.servers {
		resp, err := r.exchange(ctx, req, server)
		if err != nil {
			lastErr = fmt.Errorf("%w: %s %s via %s: %w", ErrTemporary, typeName, name, server, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		switch resp.Rcode {
		case dns.RcodeSuccess:
			return resp, nil
		case dns.RcodeNameError:
			return nil, fmt.Errorf("%w: %s %s: NXDOMAIN", ErrNotFound, typeName, name)
		default:
			lastErr = fmt.Errorf("%w: %s %s via %s: %s", ErrTemporary, typeName, name, server, dns.RcodeToString[resp.Rcode])
		}
	}
	return nil, lastErr
}

// exchange sends req over UDP and again over TCP when the answer comes back
// truncated (large TXT sets such as DKIM keys).
func (r *Resolver) exchange(ctx context.Context, req *dns.Msg, server string) (*dns.Msg, error) {
	udpCtx, cancel := context.WithTimeout(ctx, r.timeout)
	resp, _, err := r.udp.ExchangeContext(udpCtx, req, server)
	cancel()
	if err == nil && !resp.Truncated {
		return resp, nil
	}
	if err != nil && (resp == nil || !resp.Truncated) {
		return nil, err
	}
	tcpCtx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	resp, _, err = r.tcp.ExchangeContext(tcpCtx, req, server)
	if err != nil {
		return nil, fmt.Errorf("over tcp after truncation: %w", err)
	}
	if resp.Truncated {
		return nil, errors.New("answer truncated even over tcp")
	}
	return resp, nil
}
