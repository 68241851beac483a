package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
)

// sink is an SMTP server that accepts every message and only counts it, so
// the relay side of the benchmark costs as little CPU as possible. It never
// keeps a message body.
type sink struct {
	server   *smtp.Server
	listener net.Listener

	messages  atomic.Int64 // messages whose DATA was accepted
	unsigned  atomic.Int64 // of those, messages without a DKIM-Signature header
	firstSeen atomic.Int64 // unix nanoseconds of the first accepted message
	lastSeen  atomic.Int64 // unix nanoseconds of the latest accepted message
}

// startSink listens on 127.0.0.1 port 0 and serves in the background,
// offering STARTTLS with tlsConfig when it is not nil.
func startSink(tlsConfig *tls.Config) (*sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sink: listen: %w", err)
	}
	s := &sink{listener: ln}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return sinkSession{s}, nil }))
	srv.Domain = "sink.localhost"
	srv.TLSConfig = tlsConfig
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 1000
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	srv.ErrorLog = log.New(io.Discard, "", 0) // closed pooled connections are not news
	s.server = srv
	go func() { _ = srv.Serve(ln) }()
	return s, nil
}

// Addr is "127.0.0.1:PORT".
func (s *sink) Addr() string { return s.listener.Addr().String() }

// Count is the number of messages accepted so far.
func (s *sink) Count() int64 { return s.messages.Load() }

// Unsigned is the number of accepted messages that had no DKIM-Signature.
func (s *sink) Unsigned() int64 { return s.unsigned.Load() }

// Close stops the server and its open connections.
func (s *sink) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.server.Shutdown(ctx); err != nil {
		_ = s.server.Close()
	}
}

// sinkSession accepts any envelope; only DATA does work.
type sinkSession struct{ s *sink }

func (sinkSession) Reset()                               {}
func (sinkSession) Logout() error                        { return nil }
func (sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }

// Data reads the header section to look for DKIM-Signature, then discards
// the rest.
func (ss sinkSession) Data(r io.Reader) error {
	br := bufio.NewReaderSize(r, 4096)
	signed, err := hasDKIMSignature(br)
	if err != nil {
		return fmt.Errorf("sink: read header: %w", err)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return fmt.Errorf("sink: read body: %w", err)
	}
	if !signed {
		ss.s.unsigned.Add(1)
	}
	now := time.Now().UnixNano()
	ss.s.firstSeen.CompareAndSwap(0, now)
	ss.s.lastSeen.Store(now)
	ss.s.messages.Add(1)
	return nil
}

var dkimHeaderName = []byte("dkim-signature:")

// hasDKIMSignature reads header lines up to the blank line that ends them
// and tells whether one of them starts a DKIM-Signature field.
func hasDKIMSignature(br *bufio.Reader) (bool, error) {
	found := false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A folded DKIM value can be long; the field name is in the
			// first chunk, so skip the rest of the line.
			if len(line) >= len(dkimHeaderName) && bytes.EqualFold(line[:len(dkimHeaderName)], dkimHeaderName) {
				found = true
			}
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				return found, err
			}
			continue
		}
		if err == io.EOF {
			return found, nil
		}
		if err != nil {
			return found, err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return found, nil
		}
		if len(line) >= len(dkimHeaderName) && bytes.EqualFold(line[:len(dkimHeaderName)], dkimHeaderName) {
			found = true
		}
	}
}

// exchanger is one more listener of a sink, standing for one destination's
// MX in the direct scenario: its messages count into the sink, and it
// counts its connections open at once, which D80 bounds.
type exchanger struct {
	server          *smtp.Server
	open, maxOpen   atomic.Int64
	connections     atomic.Int64
	addr            string
	countedListener net.Listener
}

// listenAlso serves addr ("127.0.0.71:2525") as another face of s,
// offering STARTTLS with tlsConfig when it is not nil.
func (s *sink) listenAlso(addr string, tlsConfig *tls.Config) (*exchanger, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("exchanger: listen %s: %w", addr, err)
	}
	x := &exchanger{addr: ln.Addr().String()}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return sinkSession{s}, nil }))
	srv.Domain = "mx.localhost"
	srv.TLSConfig = tlsConfig
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 1000
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	srv.ErrorLog = log.New(io.Discard, "", 0)
	x.server = srv
	x.countedListener = &countingListener{Listener: ln, x: x}
	go func() { _ = srv.Serve(x.countedListener) }()
	return x, nil
}

// Close stops the exchanger.
func (x *exchanger) Close() { _ = x.server.Close() }

// countingListener counts an exchanger's connections.
type countingListener struct {
	net.Listener
	x *exchanger
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	n := l.x.open.Add(1)
	l.x.connections.Add(1)
	for {
		m := l.x.maxOpen.Load()
		if n <= m || l.x.maxOpen.CompareAndSwap(m, n) {
			break
		}
	}
	return &countedConn{Conn: c, x: l.x}, nil
}

// countedConn leaves the count when closed, before the socket closes, so
// a client waiting for the close never sees it counted.
type countedConn struct {
	net.Conn
	x    *exchanger
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.x.open.Add(-1) })
	return c.Conn.Close()
}
