// Package testutil holds the in-process servers every Carteiro test runs
// against instead of mocks (DESIGN.md): an authoritative DNS server
// (miekg/dns), an SMTP server with per-recipient scripted replies and fault
// modes (go-smtp), an HTTPS receiver with its own CA for webhooks, and a
// controllable clock. Everything listens on 127.0.0.1 port 0 and is stopped
// by t.Cleanup. It is imported only by tests.
package testutil
