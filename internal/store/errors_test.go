package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// Every shape an unreachable PostgreSQL took while it restarted or was cut
// off mid-load is unavailable (D11's 503), and statement errors are not.
func TestIsUnavailableClassifiesEveryOutageShape(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"57P01 admin shutdown, bare, as on the accept path", &pgconn.PgError{Code: "57P01"}, true},
		{"57P02 crash shutdown", fmt.Errorf("store: insert: %w", &pgconn.PgError{Code: "57P02"}), true},
		{"57P03 cannot connect now", &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{"08006 connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"53300 too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"unexpected EOF", fmt.Errorf("store: commit: %w", io.ErrUnexpectedEOF), true},
		{"connection reset by peer", fmt.Errorf("store: read: %w", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"conn closed", fmt.Errorf("store: query: %w", pgconn.ErrConnClosed), true},
		{"already classified", errors.Join(store.ErrUnavailable, errors.New("x")), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"57014 query cancelled by the caller", &pgconn.PgError{Code: "57014"}, false},
		{"not found", store.ErrNotFound, false},
		{"a context's deadline", context.DeadlineExceeded, false},
		{"nil", nil, false},
	}
	for _, c := range cases {
		if got := store.IsUnavailable(c.err); got != c.want {
			t.Errorf("%s: IsUnavailable(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// A server that answers the startup message with 57P03, as PostgreSQL does
// while it starts or shuts down: pgx wraps the PgError in a ConnectError,
// and the whole is unavailable, not a statement's error.
func TestIsUnavailableOnConnectErrorWrappingPgError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answerStartingUp(c)
		}
	}()
	ctx := testContext(t)
	_, err = pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/d?sslmode=disable&connect_timeout=5", ln.Addr()))
	var connErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	if !errors.As(err, &connErr) || !errors.As(err, &pgErr) || pgErr.Code != "57P03" {
		t.Fatalf("connect error %v is not a ConnectError wrapping 57P03", err)
	}
	if !store.IsUnavailable(err) {
		t.Fatalf("IsUnavailable(%v) = false", err)
	}
}

// answerStartingUp reads a startup message and answers with an
// ErrorResponse carrying SQLSTATE 57P03, then hangs up.
func answerStartingUp(c net.Conn) {
	defer c.Close()
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return
	}
	if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(size[:]))-4); err != nil {
		return
	}
	var body []byte
	for _, f := range []struct {
		tag byte
		val string
	}{{'S', "FATAL"}, {'V', "FATAL"}, {'C', "57P03"}, {'M', "the database system is starting up"}} {
		body = append(append(append(body, f.tag), f.val...), 0)
	}
	body = append(body, 0)
	msg := append([]byte{'E', 0, 0, 0, 0}, body...)
	binary.BigEndian.PutUint32(msg[1:5], uint32(len(body)+4))
	_, _ = c.Write(msg)
}

// A statement on a connection that was closed under it is unavailable:
// the real error pgx returns, from the machine's PostgreSQL.
func TestIsUnavailableOnClosedConnection(t *testing.T) {
	ctx := testContext(t)
	conn, err := pgx.Connect(ctx, testserver.DatabaseURL(t, testserver.Postgres))
	testserver.RequireService(t, "PostgreSQL", err)
	if err := conn.PgConn().Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "SELECT 1")
	if err == nil || !store.IsUnavailable(err) {
		t.Fatalf("a statement on a closed connection: %v, IsUnavailable false", err)
	}
}
