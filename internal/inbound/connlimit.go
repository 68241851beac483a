package inbound

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"
)

// connReplyTimeout bounds writing the refusal to a client over its
// connection cap, so a client that does not read cannot hold Accept.
const connReplyTimeout = 2 * time.Second

// tooManyConnections is written to a connection over the per-client cap
// before it is closed: a 421 greeting, which RFC 5321 (3.1) allows in place
// of the 220, tells the client to try again later.
const tooManyConnections = "421 4.7.0 Too many connections from your address, try again later\r\n"

// connLimiter caps the open connections of each client key (clientKey: an
// IPv4 address or an IPv6 /64) so one client cannot take every session
// slot; the per-client message rate (clientLimiter) bounds what each
// connection then sends.
type connLimiter struct {
	max int
	mu  sync.Mutex
	n   map[netip.Prefix]int
}

func newConnLimiter(max int) *connLimiter {
	return &connLimiter{max: max, n: make(map[netip.Prefix]int)}
}

// acquire counts a new connection of key and reports whether it is within
// the cap; a true answer must be paired with release.
func (l *connLimiter) acquire(key netip.Prefix) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[key] >= l.max {
		return false
	}
	l.n[key]++
	return true
}

func (l *connLimiter) release(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[key]--; l.n[key] <= 0 {
		delete(l.n, key) // the map holds only clients with open connections
	}
}

// limitedListener refuses, with a 421, the connections over a client's cap.
type limitedListener struct {
	net.Listener
	limits *connLimiter
	// refused is called for each connection refused (logging).
	refused func(addr netip.Addr)
}

// Accept returns the next connection within its client's cap; the others
// are answered and closed here, so the SMTP server never sees them.
func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := remoteIP(conn.RemoteAddr())
		key := clientKey(addr)
		if l.limits.acquire(key) {
			return &limitedConn{Conn: conn, release: func() { l.limits.release(key) }}, nil
		}
		l.refused(addr)
		go refuseConn(conn)
	}
}

// refuseConn writes the 421 and closes, off the accept loop.
func refuseConn(conn net.Conn) {
	_ = conn.SetWriteDeadline(time.Now().Add(connReplyTimeout))
	_, _ = conn.Write([]byte(tooManyConnections))
	_ = conn.Close()
}

// limitedConn gives its slot back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	c.once.Do(c.release)
	err := c.Conn.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
