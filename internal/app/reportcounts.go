package app

import "sync/atomic"

// What became of an inbound message, as counted for /metrics (D65).
const (
	// reportBound: a report bound to one recipient and applied.
	reportBound = "bound"
	// reportUnbound: a report about an email, bound to no recipient of it
	// (a forgery, or a redacted report about several recipients).
	reportUnbound = "unbound"
	// reportUnmatched: a report that matches no email.
	reportUnmatched = "unmatched"
	// reportNotAReport: neither a bounce nor a complaint.
	reportNotAReport = "not_a_report"
)

// reportCounts counts inbound messages by outcome since the process
// started.
type reportCounts struct {
	bound, unbound, unmatched, notAReport atomic.Uint64
}

func (c *reportCounts) count(outcome string) {
	switch outcome {
	case reportBound:
		c.bound.Add(1)
	case reportUnbound:
		c.unbound.Add(1)
	case reportUnmatched:
		c.unmatched.Add(1)
	case reportNotAReport:
		c.notAReport.Add(1)
	}
}

// InboundReports returns how many messages the inbound listener handed
// over, by outcome: bound (applied to one recipient), unbound (about an
// email but bound to no recipient, D65), unmatched, not_a_report.
func (a *App) InboundReports() map[string]uint64 {
	c := &a.reports
	return map[string]uint64{
		reportBound: c.bound.Load(), reportUnbound: c.unbound.Load(),
		reportUnmatched: c.unmatched.Load(), reportNotAReport: c.notAReport.Load(),
	}
}
