package testutil

import (
	"time"

	"github.com/emersion/go-smtp"
)

// This file holds what the delivery-engine tests (D80) observe and provoke:
// where the server listens, how many sessions it holds at once, and a
// provider-style rate limit answering 421.

// WithListenAddr makes the server listen on addr ("127.0.0.2:2525")
// instead of 127.0.0.1 on a free port: several servers sharing one port on
// different loopback addresses stand for the exchangers of several
// destinations reached through one CARTEIRO_DIRECT_PORT.
func WithListenAddr(addr string) SMTPOption {
	return func(c *smtpConfig) { c.listenAddr = addr }
}

// OpenConnections is how many connections are open now.
func (s *SMTPServer) OpenConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// MaxConcurrentConnections is the most connections that were open at once
// since the server started or since ResetMaxConcurrent.
func (s *SMTPServer) MaxConcurrentConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxOpen
}

// ResetMaxConcurrent restarts the count of MaxConcurrentConnections from
// the connections open now, so a test can observe a later period alone.
func (s *SMTPServer) ResetMaxConcurrent() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxOpen = s.open
}

// SetThrottle makes the server behave like a provider limiting a sender's
// rate: once n messages were accepted within the last window, MAIL is
// answered "421 4.7.28 ... unusual rate" (Gmail's words) until the window
// slides past them. n <= 0 removes the limit. Throttled counts the 421s.
func (s *SMTPServer) SetThrottle(n int, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttleN, s.throttleWindow = n, window
}

// Throttled is how many MAIL commands SetThrottle's limit refused.
func (s *SMTPServer) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.throttled
}

// errThrottled is the reply of a rate-limited MAIL.
var errThrottled = &smtp.SMTPError{
	Code:         421,
	EnhancedCode: smtp.EnhancedCode{4, 7, 28},
	Message:      "Our system has detected an unusual rate of mail from your IP address; try again later",
}

// throttle reports whether MAIL must be refused by SetThrottle's limit.
func (s *SMTPServer) throttle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.throttleN <= 0 {
		return false
	}
	since := time.Now().Add(-s.throttleWindow)
	recent := 0
	for i := len(s.messages) - 1; i >= 0 && s.messages[i].ReceivedAt.After(since); i-- {
		recent++
	}
	if recent < s.throttleN {
		return false
	}
	s.throttled++
	return true
}
