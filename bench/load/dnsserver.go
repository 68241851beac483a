package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// dnsServer answers TXT and CNAME questions for the names the benchmark
// publishes, over UDP and TCP on one 127.0.0.1 port, so Carteiro can verify
// the sending domain through CARTEIRO_DNS_SERVER. Any other name is NXDOMAIN.
type dnsServer struct {
	addr    string
	servers []*dns.Server

	mu      sync.RWMutex
	records map[string][]dns.RR // "name.|type" -> answer records
}

// startDNSServer binds UDP on a free port and TCP on the same number (a
// large DKIM TXT answer is truncated over UDP, and the client retries on
// TCP).
func startDNSServer() (*dnsServer, error) {
	s := &dnsServer{records: map[string][]dns.RR{}}
	var lastErr error
	for range 10 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("dns: listen udp: %w", err)
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err != nil {
			_ = pc.Close()
			lastErr = err
			continue
		}
		s.addr = pc.LocalAddr().String()
		handler := dns.HandlerFunc(s.serve)
		s.servers = []*dns.Server{{PacketConn: pc, Handler: handler}, {Listener: ln, Handler: handler}}
		for _, srv := range s.servers {
			if err := activate(srv); err != nil {
				_ = pc.Close()
				_ = ln.Close()
				return nil, err
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("dns: no port free for both udp and tcp: %w", lastErr)
}

// activate serves srv in the background and returns once it is serving.
func activate(srv *dns.Server) error {
	started := make(chan struct{})
	failed := make(chan error, 1)
	srv.NotifyStartedFunc = func() { close(started) }
	go func() {
		if err := srv.ActivateAndServe(); err != nil {
			failed <- err
		}
	}()
	select {
	case <-started:
		return nil
	case err := <-failed:
		return fmt.Errorf("dns: serve: %w", err)
	case <-time.After(5 * time.Second):
		return errors.New("dns: server did not start within 5s")
	}
}

// Addr is "127.0.0.1:PORT" for UDP and TCP.
func (s *dnsServer) Addr() string { return s.addr }

// Close stops both listeners.
func (s *dnsServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, srv := range s.servers {
		_ = srv.ShutdownContext(ctx)
	}
}

// Publish adds a record as a customer would at their DNS provider; typ is
// "TXT" or "CNAME" (the only types Carteiro asks customers to publish), or
// "MX" (preference 10) and "A" for the direct scenario's exchangers.
func (s *dnsServer) Publish(typ, host, value string) error {
	name := dns.Fqdn(strings.ToLower(host))
	hdr := dns.RR_Header{Name: name, Class: dns.ClassINET, Ttl: 60}
	var rr dns.RR
	switch typ {
	case "TXT":
		hdr.Rrtype = dns.TypeTXT
		rr = &dns.TXT{Hdr: hdr, Txt: txtStrings(value)}
	case "CNAME":
		hdr.Rrtype = dns.TypeCNAME
		rr = &dns.CNAME{Hdr: hdr, Target: dns.Fqdn(strings.ToLower(value))}
	case "MX": // the direct scenario's exchangers: "10 mx.host"
		hdr.Rrtype = dns.TypeMX
		rr = &dns.MX{Hdr: hdr, Preference: 10, Mx: dns.Fqdn(strings.ToLower(value))}
	case "A":
		hdr.Rrtype = dns.TypeA
		rr = &dns.A{Hdr: hdr, A: net.ParseIP(value).To4()}
	default:
		return fmt.Errorf("dns: cannot publish a %s record", typ)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := name + "|" + typ
	s.records[key] = append(s.records[key], rr)
	return nil
}

// txtStrings splits a value into character-strings of at most 255 bytes,
// as zones publish long DKIM keys; miekg/dns reads backslashes as escapes,
// so they are escaped.
func txtStrings(v string) []string {
	var parts []string
	for len(v) > 255 {
		parts = append(parts, v[:255])
		v = v[255:]
	}
	parts = append(parts, v)
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, `\`, `\\`)
	}
	return parts
}

func (s *dnsServer) serve(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	if len(req.Question) == 1 {
		q := req.Question[0]
		name := strings.ToLower(q.Name)
		s.mu.RLock()
		cname := s.records[name+"|CNAME"]
		answer := s.records[name+"|"+dns.TypeToString[q.Qtype]]
		s.mu.RUnlock()
		switch {
		case len(answer) > 0:
			m.Answer = answer
		case len(cname) > 0:
			m.Answer = cname // a CNAME answers any type at its name
		default:
			m.Rcode = dns.RcodeNameError
		}
	}
	size := dns.MinMsgSize
	if _, udp := w.RemoteAddr().(*net.UDPAddr); !udp {
		size = dns.MaxMsgSize
	} else if opt := req.IsEdns0(); opt != nil {
		size = int(opt.UDPSize())
	}
	m.Truncate(size)
	_ = w.WriteMsg(m)
}
