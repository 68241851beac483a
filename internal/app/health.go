package app

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/health"
	"github.com/carteiro/carteiro/internal/store"
)

// Health is POST /domains/:id/health's answer (D33). Recommendations
// carry message ids; the transport localizes them.
type Health struct {
	DomainID        string
	CheckedAt       time.Time
	Score           int
	DNS             carteiro.DomainChecks
	Listings        []health.Listing
	Metrics         health.Metrics
	Recommendations []health.Recommendation
}

// DomainHealth looks the domain's records up, asks the blocklists about
// the sending IPs and the domain, reads 30 days of counters and scores it.
func (a *App) DomainHealth(ctx context.Context, p *Principal, id string) (*Health, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	d, err := a.store.Domain(ctx, p.Org.ID, id)
	if err != nil {
		return nil, storeErr(err)
	}
	now := a.clock.Now()
	records := d.Records(a.cfg.BounceHost)
	checks := a.dns.Check(ctx, records)
	listings := health.CheckBlocklists(ctx, a.dns.Resolver, a.cfg.Blocklists, a.cfg.SendingIPs, d.Name)
	m := health.Metrics{WindowDays: health.DefaultWindowDays}
	rows, err := a.store.StatsHours(ctx, p.Org.ID, string(carteiro.ModeLive), "", d.ID, now.AddDate(0, 0, -m.WindowDays), now.Add(time.Hour))
	if err != nil {
		return nil, storeErr(err)
	}
	for _, r := range rows {
		m.Sent += r.Sent
		m.Bounced += r.Bounced
		m.Complained += r.Complained
	}
	replies, err := a.store.RecentFailedReplies(ctx, p.Org.ID, d.ID, now.AddDate(0, 0, -m.WindowDays), maxFailedReplies)
	if err != nil {
		return nil, storeErr(err)
	}
	score, recs := health.Evaluate(health.Input{Checks: checks, Records: records, Listings: listings, Metrics: m,
		SenderFailures: senderFailures(replies)})
	return &Health{DomainID: d.ID, CheckedAt: now, Score: score, DNS: checks, Listings: listings, Metrics: m, Recommendations: recs}, nil
}

// maxFailedReplies bounds the failed recipients a health check reads: the
// most recent ones say what receivers refuse now.
const maxFailedReplies = 500

// maxReplyShown bounds the reply quoted in a recommendation; a receiver
// writes what it likes there.
const maxReplyShown = 300

// senderFailures groups failed recipients' replies by what they blame on
// the sending side (bounce.Cause, D69), most frequent cause first (then by
// name), each with its most recent reply. Replies that blame no sending
// configuration (a build failure, a message too large for the relay)
// name no cause and are left out.
func senderFailures(replies []store.FailedReply) []health.SenderFailure {
	var out []health.SenderFailure
	index := map[string]int{}
	for _, r := range replies {
		cause := bounce.Cause(r.Enhanced, r.Message)
		if cause == "" {
			continue
		}
		i, seen := index[cause]
		if !seen {
			i = len(out)
			index[cause] = i
			reply := strings.TrimSpace(r.Enhanced + " " + r.Message)
			if len(reply) > maxReplyShown {
				reply = strings.ToValidUTF8(reply[:maxReplyShown], "") + "…"
			}
			out = append(out, health.SenderFailure{Cause: cause, Reply: reply})
		}
		out[i].Count++
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Cause < out[j].Cause
	})
	return out
}
