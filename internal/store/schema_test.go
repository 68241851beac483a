package store_test

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
)

// column is what the two stores must agree on for each column.
type column struct {
	Type    string
	NotNull bool
}

// schema maps table -> column -> column facts.
type schema map[string]map[string]column

// isRiverTable tells River's own tables, which River migrates per dialect.
func isRiverTable(name string) bool { return strings.HasPrefix(name, "river_") }

// sqliteSchema reads the tables of a SQLite store from sqlite_master and
// pragma table_info.
func sqliteSchema(t *testing.T, st *store.Store) schema {
	t.Helper()
	var tables []string
	rawQuery(t, st, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`, nil,
		func(scan func(...any) error) error {
			var name string
			if err := scan(&name); err != nil {
				return err
			}
			tables = append(tables, name)
			return nil
		})
	out := schema{}
	for _, table := range tables {
		if isRiverTable(table) {
			continue
		}
		cols := map[string]column{}
		rawQuery(t, st, `SELECT name, type, "notnull" FROM pragma_table_info(?)`, []any{table}, func(scan func(...any) error) error {
			var name, typ string
			var notNull int
			if err := scan(&name, &typ, &notNull); err != nil {
				return err
			}
			cols[name] = column{Type: strings.ToLower(typ), NotNull: notNull != 0}
			return nil
		})
		out[table] = cols
	}
	return out
}

// postgresSchema reads the tables of the current schema of a PostgreSQL
// store from information_schema.
func postgresSchema(t *testing.T, st *store.Store) schema {
	t.Helper()
	out := schema{}
	rawQuery(t, st, `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
		WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`, nil,
		func(scan func(...any) error) error {
			var table, name, typ, nullable string
			if err := scan(&table, &name, &typ, &nullable); err != nil {
				return err
			}
			if isRiverTable(table) {
				return nil
			}
			if out[table] == nil {
				out[table] = map[string]column{}
			}
			out[table][name] = column{Type: typ, NotNull: nullable == "NO"}
			return nil
		})
	return out
}

// migratedSchema opens a fresh store of b, runs the store's and River's
// migrations as the service does at start, and reads its schema.
func migratedSchema(t *testing.T, b testserver.Backend) schema {
	t.Helper()
	st := openStore(t, b)
	if err := queue.New(st, slog.New(slog.DiscardHandler)).Migrate(testContext(t)); err != nil {
		t.Fatalf("%s: River migrate: %v", b, err)
	}
	if b == testserver.Postgres {
		return postgresSchema(t, st)
	}
	return sqliteSchema(t, st)
}

// sameType maps the SQLite types that have no name PostgreSQL shares to
// the PostgreSQL type that means the same: bytes are BLOB in one and BYTEA
// in the other (migrations 0019, raw received messages).
var sameType = map[string]string{"blob": "bytea"}

// D2: the same schema, written once, must mean the same thing on both
// stores: same tables, same columns, same types, same nullability.
func TestSchemaAgreesAcrossBackends(t *testing.T) {
	t.Parallel()
	sqlite := migratedSchema(t, testserver.SQLite)
	postgres := migratedSchema(t, testserver.Postgres)

	if len(sqlite) == 0 {
		t.Fatal("SQLite schema has no tables")
	}
	for _, want := range []string{"schema_migrations", "settings", "organizations", "api_keys", "domains"} {
		if _, ok := sqlite[want]; !ok {
			t.Errorf("SQLite schema lacks table %s", want)
		}
	}
	if got, want := slices.Sorted(maps.Keys(sqlite)), slices.Sorted(maps.Keys(postgres)); !slices.Equal(got, want) {
		t.Errorf("tables differ:\n  sqlite:   %v\n  postgres: %v", got, want)
	}
	for _, table := range slices.Sorted(maps.Keys(sqlite)) {
		pgCols, ok := postgres[table]
		if !ok {
			continue
		}
		sqCols := sqlite[table]
		for _, name := range slices.Sorted(maps.Keys(sqCols)) {
			sq := sqCols[name]
			pg, ok := pgCols[name]
			if !ok {
				t.Errorf("%s.%s exists in SQLite only", table, name)
				continue
			}
			if sq.NotNull != pg.NotNull {
				t.Errorf("%s.%s: NOT NULL is %v in SQLite, %v in PostgreSQL", table, name, sq.NotNull, pg.NotNull)
			}
			if sq.Type != pg.Type && sameType[sq.Type] != pg.Type {
				t.Errorf("%s.%s: type %q in SQLite, %q in PostgreSQL", table, name, sq.Type, pg.Type)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(pgCols)) {
			if _, ok := sqCols[name]; !ok {
				t.Errorf("%s.%s exists in PostgreSQL only", table, name)
			}
		}
	}
	if t.Failed() {
		t.Logf("SQLite schema: %s", describe(sqlite))
	}
}

func describe(s schema) string {
	var b strings.Builder
	for _, table := range slices.Sorted(maps.Keys(s)) {
		fmt.Fprintf(&b, "\n  %s(", table)
		for i, name := range slices.Sorted(maps.Keys(s[table])) {
			if i > 0 {
				b.WriteString(", ")
			}
			c := s[table][name]
			fmt.Fprintf(&b, "%s %s", name, c.Type)
			if c.NotNull {
				b.WriteString(" NOT NULL")
			}
		}
		b.WriteString(")")
	}
	return b.String()
}
