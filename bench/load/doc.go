// Command load measures Carteiro's sending performance on this machine: it
// builds and starts the real binary as a child process, with an in-process
// SMTP sink as its relay and an in-process DNS server so the sending domain
// is verified through the real API, then drives POST /emails or
// POST /emails/batch from many clients and prints a Markdown result block
// for docs/benchmarks.md.
//
// Scenarios:
//
//	accept  N clients send single emails as fast as they can (durable accepts)
//	batch   the same with batches of 100 items
//	e2e     send -emails emails in batches and wait until the sink has them all
//	smtp    an accept run, then N SMTP sessions (STARTTLS, AUTH PLAIN, 1000
//	        messages of 5 KB each per session) on the same server (D74)
//
// With -role api the server runs as an API node (serve --role api, D1): it
// accepts and delivers nothing, so accept and batch measure the accept path
// alone; with the default -role all the same process also delivers what it
// accepts, on the same cores.
//
// Everything listens on 127.0.0.1 only, and every loop is bounded in time.
//
//	go run ./bench/load -store sqlite -scenario accept -duration 20s
package main
