package testutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// dnsTTL is the TTL of every record served. A fixed, realistic value: tests
// that cache look-ups can rely on it.
const dnsTTL = 300

// maxCNAMEHops bounds CNAME following, so a loop set up by a test (a -> b ->
// a) ends instead of hanging the server.
const maxCNAMEHops = 8

// maxTXTStringLen is the longest character-string a TXT record can hold
// (RFC 1035 section 3.3: one length byte).
const maxTXTStringLen = 255

// bindAttempts is how many UDP ports NewDNSServer tries before giving up when
// the matching TCP port keeps being taken by someone else.
const bindAttempts = 20

// MX is one mail exchanger of SetMX.
type MX struct {
	// Host is the exchanger's name, with or without trailing dot.
	Host string
	// Pref is the MX preference; lower is tried first.
	Pref uint16
}

// Query is one question the DNS server received.
type Query struct {
	// Name is the queried name in canonical form: lower case, with a
	// trailing dot.
	Name string
	// Type is the queried type, such as dns.TypeTXT.
	Type uint16
	// Net is the transport the question came on: "udp" or "tcp".
	Net string
}

// DNSServer is an in-process authoritative DNS server for tests (D32's
// configurable resolver points at it). It listens on 127.0.0.1 on one port
// for both UDP and TCP, answers from records the test sets, and records every
// question. Names are case-insensitive and may be given with or without the
// trailing dot. All methods are safe for concurrent use.
//
// The setters panic on malformed input (an invalid name or IP): that is a bug
// in the test, not a condition to handle.
type DNSServer struct {
	addr    string
	servers []*dns.Server // UDP and TCP, stopped by Close

	mu       sync.RWMutex
	records  map[string]map[uint16][]dns.RR // canonical name -> type -> RRset
	failures map[string]int                 // canonical name -> rcode
	queries  []Query
	// unrecorded stops the query log (StopRecordingQueries).
	unrecorded bool
}

// NewDNSServer starts a DNS server on 127.0.0.1 (UDP and TCP on the same
// port) and stops it when the test ends.
func NewDNSServer(t testing.TB) *DNSServer {
	t.Helper()
	s, err := StartDNSServer()
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// StartDNSServer starts a DNS server on 127.0.0.1 (UDP and TCP on the same
// port) for a caller that is not a test, such as a benchmark; Close stops it.
func StartDNSServer() (*DNSServer, error) {
	s := &DNSServer{
		records:  make(map[string]map[uint16][]dns.RR),
		failures: make(map[string]int),
	}

	packetConn, listener, err := listenUDPAndTCPOnOnePort()
	if err != nil {
		return nil, fmt.Errorf("DNS server: %w", err)
	}
	s.addr = packetConn.LocalAddr().String()

	handler := dns.HandlerFunc(s.serveDNS)
	s.servers = []*dns.Server{{PacketConn: packetConn, Handler: handler}, {Listener: listener, Handler: handler}}
	for _, srv := range s.servers {
		if err := startDNSServer(srv); err != nil {
			// Close directly: a server that never started cannot be shut down.
			_ = packetConn.Close()
			_ = listener.Close()
			return nil, fmt.Errorf("DNS server: %w", err)
		}
	}
	return s, nil
}

// Close stops the UDP and TCP servers.
func (s *DNSServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range s.servers {
		_ = srv.ShutdownContext(ctx)
	}
}

// listenUDPAndTCPOnOnePort binds UDP on a free port, then TCP on the same
// number. Another process may hold that TCP port, so it retries with a fresh
// UDP port a few times.
func listenUDPAndTCPOnOnePort() (net.PacketConn, net.Listener, error) {
	var lastErr error
	for range bindAttempts {
		packetConn, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("listen udp: %w", err)
		}
		listener, err := net.Listen("tcp", packetConn.LocalAddr().String())
		if err == nil {
			return packetConn, listener, nil
		}
		_ = packetConn.Close()
		lastErr = err
	}
	return nil, nil, fmt.Errorf("no port free for both udp and tcp after %d attempts: %w", bindAttempts, lastErr)
}

// startDNSServer runs srv in the background and returns once it is serving,
// so the first query of a test never races the server start.
func startDNSServer(srv *dns.Server) error {
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
		return fmt.Errorf("start %T: %w", srv, err)
	case <-time.After(5 * time.Second):
		return errors.New("server did not start within 5s")
	}
}

// Addr returns "127.0.0.1:PORT", valid for UDP and TCP.
func (s *DNSServer) Addr() string { return s.addr }

// SetTXT replaces the TXT set of name with one record per value. A value
// longer than 255 bytes is split into several character-strings of one
// record, as real zones publish long DKIM keys. No values removes the set.
func (s *DNSServer) SetTXT(name string, values ...string) {
	key := canonicalName(name)
	rrs := make([]dns.RR, 0, len(values))
	for _, v := range values {
		rrs = append(rrs, &dns.TXT{Hdr: rrHeader(key, dns.TypeTXT), Txt: splitTXT(v)})
	}
	s.setRRset(key, dns.TypeTXT, rrs)
}

// SetCNAME makes name an alias of target. A CNAME cannot coexist with other
// data (RFC 1034 section 3.6.2), so this removes the name's other records.
func (s *DNSServer) SetCNAME(name, target string) {
	key := canonicalName(name)
	rr := &dns.CNAME{Hdr: rrHeader(key, dns.TypeCNAME), Target: canonicalName(target)}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[key] = map[uint16][]dns.RR{dns.TypeCNAME: {rr}}
}

// SetMX replaces the MX set of name. No exchangers removes the set.
func (s *DNSServer) SetMX(name string, mx ...MX) {
	key := canonicalName(name)
	rrs := make([]dns.RR, 0, len(mx))
	for _, m := range mx {
		rrs = append(rrs, &dns.MX{Hdr: rrHeader(key, dns.TypeMX), Preference: m.Pref, Mx: canonicalName(m.Host)})
	}
	s.setRRset(key, dns.TypeMX, rrs)
}

// SetA replaces both the A and the AAAA sets of name: IPv4 addresses become
// A records, IPv6 ones AAAA records. No addresses removes both sets.
func (s *DNSServer) SetA(name string, ips ...string) {
	key := canonicalName(name)
	var a, aaaa []dns.RR
	for _, ip := range ips {
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			panic(fmt.Sprintf("testutil: DNSServer.SetA(%q): invalid IP %q: %v", name, ip, err))
		}
		if addr.Unmap().Is4() {
			a = append(a, &dns.A{Hdr: rrHeader(key, dns.TypeA), A: net.IP(addr.Unmap().AsSlice())})
		} else {
			aaaa = append(aaaa, &dns.AAAA{Hdr: rrHeader(key, dns.TypeAAAA), AAAA: net.IP(addr.AsSlice())})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setRRsetLocked(key, dns.TypeA, a)
	s.setRRsetLocked(key, dns.TypeAAAA, aaaa)
}

// Remove deletes the qtype set of name; the name stops existing when it was
// its last set.
func (s *DNSServer) Remove(name string, qtype uint16) {
	s.setRRset(canonicalName(name), qtype, nil)
}

// RemoveName deletes every record of name and any failure set for it.
func (s *DNSServer) RemoveName(name string) {
	key := canonicalName(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, key)
	delete(s.failures, key)
}

// SetFailure makes every question for name answer rcode (for example
// dns.RcodeServerFailure or dns.RcodeRefused) with no records, whatever
// records the name holds. dns.RcodeSuccess clears the failure.
func (s *DNSServer) SetFailure(name string, rcode int) {
	key := canonicalName(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if rcode == dns.RcodeSuccess {
		delete(s.failures, key)
		return
	}
	s.failures[key] = rcode
}

// Reset removes every record and failure and forgets the recorded queries.
func (s *DNSServer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = make(map[string]map[uint16][]dns.RR)
	s.failures = make(map[string]int)
	s.queries = nil
}

// StopRecordingQueries makes the server answer without recording the
// questions from now on (Queries and QueryCount then see only the earlier
// ones): a long benchmark asks millions, and the log would grow the very
// memory it measures (issue 28).
func (s *DNSServer) StopRecordingQueries() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unrecorded = true
	s.queries = nil
}

// Queries returns a copy of the questions received so far, in arrival order.
func (s *DNSServer) Queries() []Query {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Query(nil), s.queries...)
}

// QueryCount returns how many questions asked for name and qtype, whatever
// the transport. dns.TypeANY as qtype counts every type.
func (s *DNSServer) QueryCount(name string, qtype uint16) int {
	key := canonicalName(name)
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, q := range s.queries {
		if q.Name == key && (qtype == dns.TypeANY || q.Type == qtype) {
			n++
		}
	}
	return n
}

// setRRset replaces one RRset under the lock.
func (s *DNSServer) setRRset(key string, qtype uint16, rrs []dns.RR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setRRsetLocked(key, qtype, rrs)
}

// setRRsetLocked replaces or deletes one RRset. Adding data to an alias
// removes the alias, the mirror of SetCNAME removing other data.
func (s *DNSServer) setRRsetLocked(key string, qtype uint16, rrs []dns.RR) {
	sets := s.records[key]
	if len(rrs) == 0 {
		if sets != nil {
			delete(sets, qtype)
			if len(sets) == 0 {
				delete(s.records, key)
			}
		}
		return
	}
	if sets == nil {
		sets = make(map[uint16][]dns.RR)
		s.records[key] = sets
	}
	if qtype != dns.TypeCNAME {
		delete(sets, dns.TypeCNAME)
	}
	sets[qtype] = rrs
}

// serveDNS answers one message like an authoritative server would.
func (s *DNSServer) serveDNS(w dns.ResponseWriter, req *dns.Msg) {
	network := "udp"
	if _, isTCP := w.RemoteAddr().(*net.TCPAddr); isTCP {
		network = "tcp"
	}

	reply := new(dns.Msg)
	reply.SetReply(req)
	reply.Authoritative = true
	reply.RecursionAvailable = false

	if len(req.Question) != 1 {
		reply.SetRcode(req, dns.RcodeFormatError)
		_ = w.WriteMsg(reply)
		return
	}
	q := req.Question[0]
	rcode, answer := s.resolve(q, network)
	reply.Rcode = rcode
	reply.Answer = answer

	// Honour the client's buffer size so large answers (long DKIM TXT sets)
	// set TC over UDP and make real resolvers retry over TCP.
	size := dns.MinMsgSize
	if network == "tcp" {
		size = dns.MaxMsgSize
	}
	if opt := req.IsEdns0(); opt != nil {
		reply.SetEdns0(opt.UDPSize(), false)
		if network == "udp" {
			size = int(opt.UDPSize())
		}
	}
	reply.Truncate(size)
	_ = w.WriteMsg(reply)
}

// resolve records the question and computes rcode and answer section.
func (s *DNSServer) resolve(q dns.Question, network string) (int, []dns.RR) {
	key := canonicalNameOrRaw(q.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.unrecorded {
		s.queries = append(s.queries, Query{Name: key, Type: q.Qtype, Net: network})
	}

	if rcode, failing := s.failures[key]; failing {
		return rcode, nil
	}
	sets, exists := s.records[key]
	if !exists {
		return dns.RcodeNameError, nil
	}
	if q.Qtype == dns.TypeANY {
		var all []dns.RR
		for _, rrs := range sets {
			all = append(all, copyRRs(rrs, q.Name)...)
		}
		return dns.RcodeSuccess, all
	}
	if rrs := sets[q.Qtype]; len(rrs) > 0 {
		return dns.RcodeSuccess, copyRRs(rrs, q.Name)
	}
	cname := sets[dns.TypeCNAME]
	if len(cname) == 0 {
		// The name exists but has no data of this type: NODATA.
		return dns.RcodeSuccess, nil
	}
	return dns.RcodeSuccess, s.followCNAMELocked(cname, q.Name, q.Qtype)
}

// followCNAMELocked returns the alias chain starting at cname plus the
// records of qtype at its end, as far as this server knows the targets.
func (s *DNSServer) followCNAMELocked(cname []dns.RR, owner string, qtype uint16) []dns.RR {
	answer := copyRRs(cname, owner)
	target := cname[0].(*dns.CNAME).Target
	seen := map[string]bool{canonicalNameOrRaw(owner): true}
	for range maxCNAMEHops {
		if seen[target] {
			break
		}
		seen[target] = true
		sets := s.records[target]
		if rrs := sets[qtype]; len(rrs) > 0 {
			return append(answer, copyRRs(rrs, target)...)
		}
		next := sets[dns.TypeCNAME]
		if len(next) == 0 {
			break
		}
		answer = append(answer, copyRRs(next, target)...)
		target = next[0].(*dns.CNAME).Target
	}
	return answer
}

// copyRRs copies stored records with owner as their name, so the answer
// echoes the question's spelling (case included) like real servers do, and
// the stored records are never shared with the wire encoder.
func copyRRs(rrs []dns.RR, owner string) []dns.RR {
	out := make([]dns.RR, len(rrs))
	for i, rr := range rrs {
		c := dns.Copy(rr)
		c.Header().Name = owner
		out[i] = c
	}
	return out
}

// rrHeader is the header of every stored record.
func rrHeader(name string, rrtype uint16) dns.RR_Header {
	return dns.RR_Header{Name: name, Rrtype: rrtype, Class: dns.ClassINET, Ttl: dnsTTL}
}

// canonicalName lower-cases name and adds the trailing dot; it panics on a
// name DNS cannot carry, which is a bug in the calling test.
func canonicalName(name string) string {
	fqdn := dns.Fqdn(strings.ToLower(strings.TrimSpace(name)))
	if _, ok := dns.IsDomainName(fqdn); !ok {
		panic(fmt.Sprintf("testutil: invalid DNS name %q", name))
	}
	return fqdn
}

// canonicalNameOrRaw is canonicalName for names from the wire, which were
// already valid enough to be parsed and must never panic the server.
func canonicalNameOrRaw(name string) string {
	return dns.Fqdn(strings.ToLower(name))
}

// splitTXT cuts v into character-strings of at most 255 bytes. An empty value
// is one empty character-string, which is how zones publish TXT "".
// miekg/dns reads a backslash in a TXT string as an escape, so each part is
// escaped after cutting: the wire carries exactly the bytes of v.
func splitTXT(v string) []string {
	var parts []string
	for len(v) > maxTXTStringLen {
		parts = append(parts, v[:maxTXTStringLen])
		v = v[maxTXTStringLen:]
	}
	if v != "" || len(parts) == 0 {
		parts = append(parts, v)
	}
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, `\`, `\\`)
	}
	return parts
}
