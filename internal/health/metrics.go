package health

// DefaultWindowDays is the metrics window of D33.
const DefaultWindowDays = 30

// Metrics are the sending figures of a domain over the last WindowDays days.
type Metrics struct {
	WindowDays int
	Sent       int64
	Bounced    int64
	Complained int64
}

// BounceRate is Bounced/Sent as a fraction from 0 to 1, 0 when nothing was
// sent.
func (m Metrics) BounceRate() float64 { return fraction(m.Bounced, m.Sent) }

// ComplaintRate is Complained/Sent as a fraction from 0 to 1, 0 when nothing
// was sent.
func (m Metrics) ComplaintRate() float64 { return fraction(m.Complained, m.Sent) }

// fraction divides part by whole within 0..1. Counters come from separate
// queries, so a bounce of a message sent just before the window can make
// part exceed whole; clamping keeps the rate meaningful.
func fraction(part, whole int64) float64 {
	if whole <= 0 || part <= 0 {
		return 0
	}
	if part >= whole {
		return 1
	}
	return float64(part) / float64(whole)
}
