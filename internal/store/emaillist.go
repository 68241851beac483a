package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

// EmailFilter selects emails for GET /emails (D27, D28).
type EmailFilter struct {
	OrgID           string
	Mode            carteiro.Mode
	Status          string // an email status, or "complained"
	Recipient       string // case-insensitive substring of to, cc or bcc
	FromEmail       string // the sender address, case-insensitive
	SubjectContains string // case-insensitive substring
	APIKeyID        string
	Tag             string // "name" or "name:value"
	From, To        *time.Time
	After           *time.Time // cursor: only emails created before it
	Limit           int
}

// ListEmails returns one page, newest first, and the cursor of the next
// page (nil when there is none). A page never splits emails that share a
// createdAt (D27): it ends before such a group, or, when the group alone is
// larger than the limit, holds the whole group.
func (q *Queries) ListEmails(ctx context.Context, f EmailFilter) ([]*carteiro.Email, *time.Time, error) {
	where, args := f.where()
	rows, err := q.listEmails(ctx, where, args, f.Limit+1)
	if err != nil {
		return nil, nil, err
	}
	return cutPage(rows, f.Limit, func(e *carteiro.Email) time.Time { return e.CreatedAt },
		func(at time.Time) ([]*carteiro.Email, error) {
			return q.listEmails(ctx, where+" AND created_at = ?", append(args, micros(at)), -1)
		})
}

func (q *Queries) listEmails(ctx context.Context, where string, args []any, limit int) ([]*carteiro.Email, error) {
	query := `SELECT ` + emailColumns + ` FROM emails WHERE ` + where + ` ORDER BY created_at DESC, id DESC`
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit)
	}
	rs, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list emails: %w", classify(err))
	}
	defer rs.Close()
	var out []*carteiro.Email
	for rs.Next() {
		e, err := scanEmail(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list emails: %w", classify(err))
		}
		out = append(out, e)
	}
	return out, rs.Err()
}

func (f EmailFilter) where() (string, []any) {
	conds := []string{"org_id = ?", "mode = ?"}
	args := []any{f.OrgID, string(f.Mode)}
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	switch f.Status {
	case "":
	case "complained":
		add("complained_at IS NOT NULL")
	default:
		add("status = ?", f.Status)
	}
	if f.Recipient != "" {
		add(`search_recipients LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.Recipient))+"%")
	}
	if f.FromEmail != "" {
		add("from_email = ?", strings.ToLower(f.FromEmail))
	}
	if f.SubjectContains != "" {
		add(`LOWER(subject) LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.SubjectContains))+"%")
	}
	if f.APIKeyID != "" {
		add("api_key_id = ?", f.APIKeyID)
	}
	if f.Tag != "" {
		if name, value, ok := strings.Cut(f.Tag, ":"); ok {
			add("EXISTS (SELECT 1 FROM email_tags t WHERE t.email_id = emails.id AND t.name = ? AND t.value = ?)", name, value)
		} else {
			add("EXISTS (SELECT 1 FROM email_tags t WHERE t.email_id = emails.id AND t.name = ?)", name)
		}
	}
	if f.From != nil {
		add("created_at >= ?", micros(*f.From))
	}
	if f.To != nil {
		add("created_at < ?", micros(*f.To))
	}
	if f.After != nil {
		add("created_at < ?", micros(*f.After))
	}
	return strings.Join(conds, " AND "), args
}

// likeEscape makes s match literally inside a LIKE pattern.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
