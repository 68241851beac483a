package store

import (
	"context"
	"fmt"
	"time"
)

// FailedReply is the last reply of a recipient that failed: its enhanced
// status code and text (D69).
type FailedReply struct {
	Enhanced, Message string
}

// RecentFailedReplies lists the replies of the failed recipients of a
// domain's live emails created since since, newest first, at most limit:
// what domain health reads to name the causes of sending-side refusals
// (D69). The emails_by_time index serves the range; the recipients are
// read by their primary key.
func (q *Queries) RecentFailedReplies(ctx context.Context, orgID, domainID string, since time.Time, limit int) ([]FailedReply, error) {
	rs, err := q.query(ctx, `SELECT r.last_enhanced, r.last_message FROM emails e
		JOIN email_recipients r ON r.email_id = e.id
		WHERE e.org_id = ? AND e.mode = 'live' AND e.created_at >= ? AND e.domain_id = ? AND r.status = 'failed'
		ORDER BY e.created_at DESC, e.id DESC, r.position LIMIT ?`, orgID, micros(since), domainID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent failed replies: %w", classify(err))
	}
	defer rs.Close()
	var out []FailedReply
	for rs.Next() {
		var enh, msg *string
		if err := rs.Scan(&enh, &msg); err != nil {
			return nil, fmt.Errorf("store: recent failed replies: %w", classify(err))
		}
		out = append(out, FailedReply{Enhanced: deref(enh), Message: deref(msg)})
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("store: recent failed replies: %w", classify(err))
	}
	return out, nil
}
