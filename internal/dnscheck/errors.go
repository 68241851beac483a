package dnscheck

import "errors"

// ErrNotFound means the name does not exist (NXDOMAIN) or holds no record of
// the asked type. A check treats it as a definite "fail".
var ErrNotFound = errors.New("dnscheck: no such record")

// ErrTemporary means no trustworthy answer was obtained: SERVFAIL or another
// error rcode, a timeout, or a network failure. A check treats it as
// "pending", since the record may well exist (D32).
var ErrTemporary = errors.New("dnscheck: temporary DNS failure")

// isNotFound is errors.Is(err, ErrNotFound), named for readability.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
