// Command stats measures the second performance target of the "events
// out" issue on this machine: GET /stats over one year of daily buckets in
// at most 20 ms at p99.
//
// It starts the real service in this process through internal/server on a
// fresh SQLite file or PostgreSQL schema, registers a domain through the
// API, writes a year of history straight through the service's store with
// AddStats (the call every recorded event makes, D54): each day a few
// hours, each of the seven metrics, for the keys an email with a domain and
// one tag counts under (all emails, the tag's name, its name:value; each
// key's hour and day buckets). It checks
// one answer of each query against what it wrote, then runs each query from
// several concurrent clients for a while and prints a Markdown result block
// for docs/benchmarks-events.md.
//
// Everything listens on 127.0.0.1 only, and every loop is bounded in time.
//
//	go run ./bench/stats -store sqlite
package main
