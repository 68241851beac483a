package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/carteiro/carteiro"
)

const contactColumns = `id, audience_id, org_id, email, email_key, first_name, last_name, metadata, created_at`

func scanContact(r row) (*carteiro.Contact, error) {
	var c carteiro.Contact
	var key, meta string
	var created int64
	if err := r.Scan(&c.ID, &c.AudienceID, &c.OrgID, &c.Email, &key, &c.FirstName, &c.LastName, &meta, &created); err != nil {
		return nil, err
	}
	if meta != "{}" {
		c.Metadata = carteiro.ContactMetadata(meta)
	}
	c.CreatedAt = fromMicros(created)
	return &c, nil
}

func contactArgs(c *carteiro.Contact) []any {
	return []any{c.ID, c.AudienceID, c.OrgID, c.Email, strings.ToLower(c.Email), c.FirstName, c.LastName, string(c.Metadata.JSON()), micros(c.CreatedAt)}
}

// InsertContact adds one contact and counts it; an address already in the
// audience (any case) is ErrConflict (D41).
func (q *Queries) InsertContact(ctx context.Context, c *carteiro.Contact) error {
	if _, err := q.exec(ctx, `INSERT INTO contacts (`+contactColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, contactArgs(c)...); err != nil {
		return fmt.Errorf("store: insert contact: %w", classify(err))
	}
	return q.addContactsCount(ctx, c.AudienceID, 1)
}

// bulkChunk bounds the rows of one INSERT: 500 rows of 9 values stay under
// both stores' limits on bound parameters.
const bulkChunk = 500

// InsertContactsSkippingDuplicates inserts the contacts that are not in the
// audience yet and counts them. It returns the lower-case keys it inserted;
// callers have removed duplicates inside the batch.
func (q *Queries) InsertContactsSkippingDuplicates(ctx context.Context, audienceID string, cs []*carteiro.Contact) (map[string]bool, error) {
	imp := q.ImportContacts(audienceID, len(cs))
	if err := imp.Add(ctx, cs); err != nil {
		return nil, err
	}
	return imp.Inserted, imp.Finish(ctx)
}

// ContactImport is a bulk insert into one audience fed in parts, all in
// the transaction of the Queries that began it, so that the caller can
// check the next part while the database writes this one.
type ContactImport struct {
	q          *Queries
	audienceID string
	// Inserted is the lower-case keys inserted so far.
	Inserted map[string]bool
	// metDuplicate is set once a part met an address the audience had
	// (PostgreSQL: the parts after it skip duplicates from the start).
	metDuplicate bool
}

// ImportContacts begins a bulk insert of about expected contacts into an
// audience; Finish counts them.
func (q *Queries) ImportContacts(audienceID string, expected int) *ContactImport {
	return &ContactImport{q: q, audienceID: audienceID, Inserted: make(map[string]bool, expected)}
}

// Add inserts the contacts of cs that are not in the audience yet.
//
// The INSERTs return no rows: when a part inserts all of its rows, which a
// first import does, its keys are known without reading 10,000 rows back
// (RETURNING cost SQLite an ephemeral table and both stores a row per
// contact, docs/benchmarks-campaigns.md); otherwise collectInserted reads
// which of the part's new ids are there.
func (imp *ContactImport) Add(ctx context.Context, cs []*carteiro.Contact) error {
	q := imp.q
	if tx := q.ownPgxTx(); tx != nil {
		return imp.insertContactsFromArrays(ctx, tx, cs)
	}
	for start := 0; start < len(cs); start += bulkChunk {
		chunk := cs[start:min(start+bulkChunk, len(cs))]
		var b strings.Builder
		b.WriteString(`INSERT INTO contacts (` + contactColumns + `) VALUES `)
		args := make([]any, 0, len(chunk)*9)
		for i, c := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, contactArgs(c)...)
		}
		b.WriteString(` ON CONFLICT (audience_id, email_key) DO NOTHING`)
		n, err := q.exec(ctx, b.String(), args...)
		if err != nil {
			return fmt.Errorf("store: bulk insert contacts: %w", classify(err))
		}
		if err := q.collectInserted(ctx, chunk, n, imp.Inserted); err != nil {
			return err
		}
	}
	return nil
}

// Finish adds the contacts inserted to the audience's count.
func (imp *ContactImport) Finish(ctx context.Context) error {
	return imp.q.addContactsCount(ctx, imp.audienceID, int64(len(imp.Inserted)))
}

// collectInserted adds to into the keys of the contacts of cs that an
// INSERT that skipped duplicates inserted, n of them.
func (q *Queries) collectInserted(ctx context.Context, cs []*carteiro.Contact, n int64, into map[string]bool) error {
	if n == int64(len(cs)) {
		for _, c := range cs {
			into[strings.ToLower(c.Email)] = true
		}
		return nil
	}
	if n == 0 {
		return nil
	}
	// Some rows were skipped: the ids are new, so the rows holding them
	// are the ones this INSERT wrote.
	var rs rows
	var err error
	if q.dialect == Postgres {
		ids := make([]string, len(cs))
		for i, c := range cs {
			ids[i] = c.ID
		}
		rs, err = q.query(ctx, `SELECT email_key FROM contacts WHERE id = ANY(?)`, ids)
	} else {
		args := make([]any, len(cs))
		for i, c := range cs {
			args[i] = c.ID
		}
		rs, err = q.query(ctx, `SELECT email_key FROM contacts WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(cs)), ", ")+`)`, args...)
	}
	if err != nil {
		return fmt.Errorf("store: bulk insert contacts: read inserted: %w", classify(err))
	}
	err = collectKeys(rs, into)
	rs.Close()
	if err != nil {
		return fmt.Errorf("store: bulk insert contacts: read inserted: %w", classify(err))
	}
	return nil
}

// insertContactsFromArrays is the PostgreSQL path of a bulk insert: one
// INSERT that reads every contact from arrays (unnest), one array per
// column. Arrays bind 10,000 rows as nine parameters, where multi-row
// VALUES would need 90,000 (over PostgreSQL's limit) and a COPY needs a
// temporary table, created and dropped in the catalog each time.
//
// Until a part meets an address the audience already has, parts go in as a
// plain INSERT inside a savepoint: skipping duplicates (ON CONFLICT DO
// NOTHING) makes PostgreSQL insert every row speculatively, which costs
// half as much again (docs/benchmarks-campaigns.md). A part that
// meets one is rolled back to its savepoint and written again skipping
// duplicates, and so are the parts after it.
func (imp *ContactImport) insertContactsFromArrays(ctx context.Context, tx pgx.Tx, cs []*carteiro.Contact) error {
	n := len(cs)
	ids, emails, keys, metas := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	firsts, lasts := make([]*string, n), make([]*string, n)
	created := make([]int64, n)
	orgID := ""
	for i, c := range cs {
		ids[i], emails[i], keys[i], metas[i] = c.ID, c.Email, strings.ToLower(c.Email), string(c.Metadata.JSON())
		firsts[i], lasts[i], created[i] = c.FirstName, c.LastName, micros(c.CreatedAt)
		orgID = c.OrgID
	}
	const insert = `INSERT INTO contacts (` + contactColumns + `)
		SELECT u.id, CAST($1 AS TEXT), CAST($2 AS TEXT), u.email, u.email_key, u.first_name, u.last_name, u.metadata, u.created_at
		FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])
			AS u (id, email, email_key, first_name, last_name, metadata, created_at)`
	args := []any{imp.audienceID, orgID, ids, emails, keys, firsts, lasts, metas, created}
	if !imp.metDuplicate {
		all, err := insertAllOrNone(ctx, tx, insert, args)
		if err != nil {
			return fmt.Errorf("store: bulk insert contacts: %w", classify(err))
		}
		if all {
			for _, k := range keys {
				imp.Inserted[k] = true
			}
			return nil
		}
		imp.metDuplicate = true
	}
	tag, err := tx.Exec(ctx, insert+` ON CONFLICT (audience_id, email_key) DO NOTHING`, args...)
	if err != nil {
		return fmt.Errorf("store: bulk insert contacts: %w", classify(err))
	}
	return imp.q.collectInserted(ctx, cs, tag.RowsAffected(), imp.Inserted)
}

// insertAllOrNone runs insert in a savepoint and tells whether it inserted
// every row; on a unique violation it rolls back to the savepoint and
// answers false.
func insertAllOrNone(ctx context.Context, tx pgx.Tx, insert string, args []any) (bool, error) {
	if _, err := tx.Exec(ctx, "SAVEPOINT contact_part"); err != nil {
		return false, err
	}
	_, err := tx.Exec(ctx, insert, args...)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		_, err = tx.Exec(ctx, "RELEASE SAVEPOINT contact_part")
		return err == nil, err
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		_, err = tx.Exec(ctx, "ROLLBACK TO SAVEPOINT contact_part")
		return false, err
	}
	return false, err
}

// keyRows is what both stores' row sets offer for reading returned keys.
type keyRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// collectKeys adds every key rs returns to into.
func collectKeys(rs keyRows, into map[string]bool) error {
	for rs.Next() {
		var key string
		if err := rs.Scan(&key); err != nil {
			return err
		}
		into[key] = true
	}
	return rs.Err()
}

// Contact returns a contact of an audience of the organization.
func (q *Queries) Contact(ctx context.Context, orgID, audienceID, id string) (*carteiro.Contact, error) {
	c, err := scanContact(q.queryRow(ctx, `SELECT `+contactColumns+` FROM contacts WHERE id = ? AND audience_id = ? AND org_id = ?`, id, audienceID, orgID))
	if err != nil {
		return nil, fmt.Errorf("store: contact %s: %w", id, classify(err))
	}
	return c, nil
}

// ContactIDByEmail returns the id of the audience's contact with email (any
// case): a duplicate's 409 names it (D11).
func (q *Queries) ContactIDByEmail(ctx context.Context, orgID, audienceID, email string) (string, error) {
	var id string
	err := q.queryRow(ctx, `SELECT id FROM contacts WHERE audience_id = ? AND email_key = ? AND org_id = ?`,
		audienceID, strings.ToLower(email), orgID).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("store: contact by email: %w", classify(err))
	}
	return id, nil
}

// ListContacts returns one page of an audience's contacts, oldest first.
func (q *Queries) ListContacts(ctx context.Context, audienceID string, limit, offset int) ([]*carteiro.Contact, error) {
	return scanContacts(q.query(ctx, `SELECT `+contactColumns+` FROM contacts WHERE audience_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
		audienceID, limit, offset))
}

// ContactKey is a contact's place in its audience's walking order, the
// order of the contacts_by_audience index.
type ContactKey struct {
	CreatedAt int64 // Unix microseconds
	ID        string
}

// ContactsInRange returns the contacts of an audience after the position
// after, up to and including the position upto, in walking order. The
// bounds are row values so that both stores seek the index straight to
// them: spelled with OR, SQLite walked every contact sharing a bound's
// created_at, which is all of a bulk import's, and a broadcast's chunks
// spent more time there than anywhere else.
func (q *Queries) ContactsInRange(ctx context.Context, audienceID string, after, upto ContactKey) ([]*carteiro.Contact, error) {
	return scanContacts(q.query(ctx, `SELECT `+contactColumns+` FROM contacts WHERE audience_id = ?
		AND (created_at, id) > (?, ?) AND (created_at, id) <= (?, ?)
		ORDER BY created_at, id`, audienceID, after.CreatedAt, after.ID, upto.CreatedAt, upto.ID))
}

func scanContacts(rs rows, err error) ([]*carteiro.Contact, error) {
	if err != nil {
		return nil, fmt.Errorf("store: list contacts: %w", classify(err))
	}
	defer rs.Close()
	out := []*carteiro.Contact{}
	for rs.Next() {
		c, err := scanContact(rs)
		if err != nil {
			return nil, fmt.Errorf("store: list contacts: %w", classify(err))
		}
		out = append(out, c)
	}
	return out, rs.Err()
}

// UpdateContact stores names and metadata.
func (q *Queries) UpdateContact(ctx context.Context, c *carteiro.Contact) error {
	n, err := q.exec(ctx, `UPDATE contacts SET first_name = ?, last_name = ?, metadata = ? WHERE id = ? AND audience_id = ?`,
		c.FirstName, c.LastName, string(c.Metadata.JSON()), c.ID, c.AudienceID)
	if err != nil {
		return fmt.Errorf("store: update contact %s: %w", c.ID, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteContact removes a contact and uncounts it.
func (q *Queries) DeleteContact(ctx context.Context, orgID, audienceID, id string) error {
	n, err := q.exec(ctx, `DELETE FROM contacts WHERE id = ? AND audience_id = ? AND org_id = ?`, id, audienceID, orgID)
	if err != nil {
		return fmt.Errorf("store: delete contact %s: %w", id, classify(err))
	}
	if n == 0 {
		return ErrNotFound
	}
	return q.addContactsCount(ctx, audienceID, -1)
}
