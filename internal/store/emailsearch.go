package store

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/carteiro/carteiro"
)

// searchProbeRows is how many of the newest emails in a filter's range the
// probe of firstEmails reads before it turns to the trigram index: enough
// that a term in a few percent of the emails fills a page from them, few
// enough that reading them costs milliseconds.
const searchProbeRows = 2000

// firstEmails is listEmails for the first rows of a page. On SQLite, when a
// substring filter (D28) has a term of three characters or more, the
// trigram index email_search (migration 0024) narrows the candidates,
// issue 26. The index path reads every candidate and sorts them, which
// costs more than today's scan when the term is in most emails (the scan
// stops at limit matches), so a bounded probe comes first: the same query
// over the newest searchProbeRows emails of the range. Those emails are a
// prefix, in the page's order, of the range, so when the probe fills the
// page its rows are the page's. The LIKE conditions of where still decide
// on both paths: the index only narrows, and results stay those of a scan,
// with the same case folding and escaping. PostgreSQL needs none of this:
// its trigram indexes serve the LIKE itself, and its planner weighs them
// against walking emails_by_time.
func (q *Queries) firstEmails(ctx context.Context, f EmailFilter, where string, args []any, limit int) ([]*carteiro.Email, error) {
	match := ""
	if q.dialect == SQLite {
		match = f.trigramMatch()
	}
	if match == "" {
		return q.listEmails(ctx, where, args, limit)
	}
	probe, probeArgs := f.newestInRange(searchProbeRows)
	rows, err := q.listEmails(ctx, where+" AND emails.rowid IN ("+probe+")", slices.Concat(args, probeArgs), limit)
	if err != nil || len(rows) >= limit {
		return rows, err
	}
	return q.listEmails(ctx, where+searchCondition, slices.Concat(args, []any{match}), limit)
}

// searchCondition narrows a listing to the candidates of the trigram index
// for the MATCH expression of trigramMatch.
const searchCondition = " AND emails.rowid IN (SELECT rowid FROM email_search WHERE email_search MATCH ?)"

// trigramMatch is the FTS5 query the filter's substring terms give the
// trigram index, "" when none can use it: a term of fewer than three
// characters has no trigram and matches nothing in the index. Each term
// is a quoted phrase (its double quotes doubled), which the trigram
// tokenizer matches as a substring of its column, folding case.
func (f EmailFilter) trigramMatch() string {
	var phrases []string
	for _, t := range []struct{ column, term string }{
		{"search_recipients", f.Recipient},
		{"subject", f.SubjectContains},
	} {
		term := strings.ToLower(t.term)
		if utf8.RuneCountInString(term) < 3 {
			continue
		}
		phrases = append(phrases, "{"+t.column+`} : "`+strings.ReplaceAll(term, `"`, `""`)+`"`)
	}
	return strings.Join(phrases, " AND ")
}

// newestInRange is a subquery of the rowids of the newest n emails of the
// filter's organization, mode and time range (not its other conditions),
// in the page's order: a walk of emails_by_time.
func (f EmailFilter) newestInRange(n int) (string, []any) {
	conds := []string{"r.org_id = ?", "r.mode = ?"}
	args := []any{f.OrgID, string(f.Mode)}
	for _, c := range []struct {
		cond string
		at   *time.Time
	}{{"r.created_at >= ?", f.From}, {"r.created_at < ?", f.To}, {"r.created_at < ?", f.After}} {
		if c.at != nil {
			conds = append(conds, c.cond)
			args = append(args, micros(*c.at))
		}
	}
	return "SELECT r.rowid FROM emails r WHERE " + strings.Join(conds, " AND ") +
		" ORDER BY r.created_at DESC, r.id DESC LIMIT " + strconv.Itoa(n), args
}
