package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// A prepared-statement cache for SQLite connections. database/sql prepares
// every query anew unless the caller keeps a *sql.Stmt, and SQLite's parser
// was a third of the CPU of an accept (River's insert statement included).
// This wraps the driver's connections so each keeps its statements by query
// text and reuses them; a statement still busy with open rows is never
// reused, a one-off statement serves instead.

// maxCachedStmts bounds one connection's cache.
const maxCachedStmts = 256

type cachingConnector struct {
	dsn    string
	driver *sqlite.Driver
}

// openCachedSQLite opens a *sql.DB over dsn whose connections cache
// statements.
func openCachedSQLite(dsn string) *sql.DB {
	return sql.OpenDB(&cachingConnector{dsn: dsn, driver: &sqlite.Driver{}})
}

func (c *cachingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.driver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &cachingConn{inner: conn, stmts: map[string]*cachedStmt{}}, nil
}

func (c *cachingConnector) Driver() driver.Driver { return c.driver }

type cachedStmt struct {
	stmt driver.Stmt
	busy bool
}

// innerConn is what the sqlite driver's connections implement.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
}

type cachingConn struct {
	inner driver.Conn
	stmts map[string]*cachedStmt
}

var errNotSQLiteConn = errors.New("store: unexpected SQLite connection type")

func (c *cachingConn) full() (innerConn, error) {
	ic, ok := c.inner.(innerConn)
	if !ok {
		return nil, errNotSQLiteConn
	}
	return ic, nil
}

// stmt returns the cached statement for query, preparing it on first use,
// or nil when it is busy (the caller then runs the query uncached).
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil, nil
		}
		return cs, nil
	}
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	st, err := ic.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(c.stmts) >= maxCachedStmts {
		c.evict()
	}
	cs := &cachedStmt{stmt: st}
	c.stmts[query] = cs
	return cs, nil
}

// evict closes every idle statement (a crude but bounded policy: the
// working set of this service is far below the bound).
func (c *cachingConn) evict() {
	for q, cs := range c.stmts {
		if !cs.busy {
			_ = cs.stmt.Close()
			delete(c.stmts, q)
		}
	}
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	cs, err := c.stmt(ctx, query)
	if err != nil || cs == nil {
		return ic.ExecContext(ctx, query, args)
	}
	return cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	cs, err := c.stmt(ctx, query)
	if err != nil || cs == nil {
		return ic.QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, owner: cs}, nil
}

// cachedRows frees its statement for reuse when closed.
type cachedRows struct {
	driver.Rows
	owner *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.owner.busy = false
	return err
}

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) { return c.inner.Prepare(query) }

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	return ic.PrepareContext(ctx, query)
}

func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	return ic.BeginTx(ctx, opts)
}

func (c *cachingConn) Close() error {
	for q, cs := range c.stmts {
		_ = cs.stmt.Close()
		delete(c.stmts, q)
	}
	return c.inner.Close()
}

func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *cachingConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}
