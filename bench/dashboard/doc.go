// Command dashboard measures issue 26's dashboard target on this machine:
// every dashboard page's first byte within 50 ms p99 with 10 concurrent
// users, on a database holding 1,000,000 emails.
//
// It starts Carteiro in-process on a fresh database (SQLite or a fresh
// PostgreSQL schema), sends -seed sandbox emails through POST /emails/batch
// (mixed outcomes and tags, so timelines, statuses and tags are real), and
// then grows the organization to -emails by copying those emails with their
// recipients, timelines and tags under new ids and older times, in SQL, one
// transaction per doubling: seeding 1M emails through the API would take
// hours on two cores. It creates -users dashboard users, signs each in
// through the same use case as POST /v1/platform/login (the HTTP route
// allows 5 sign-ins a minute per client IP, D73), and has each user open
// pages in turn for -duration: the page itself (/dashboard/...) and the
// platform JSON calls the page's script makes, one after another. The
// report gives p50/p90/p99 of time to first byte per call and per page,
// against the 50 ms target.
//
// Everything listens on 127.0.0.1 and the service's DNS server is a dead
// loopback port, so nothing leaves the machine.
//
//	go run ./bench/dashboard                            # SQLite, 1M emails
//	go run ./bench/dashboard -store postgres -emails 200000
package main
