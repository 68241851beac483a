// Command webhooks measures the first performance target of the "events
// out" issue on this machine: at least 2,000 webhook deliveries per second
// to a local HTTPS receiver, every attempt recorded durably, and at most 1 s
// at p99 from an event being recorded to the first delivery attempt.
//
// It starts the real service in this process through internal/server (the
// composition root cmd/carteiro uses), on a fresh SQLite file or PostgreSQL
// schema, registers one or more webhooks subscribed to every event type
// pointing at an in-process HTTPS receiver with its own certificate
// authority, and generates events with sandbox sends through the real API
// (POST /v1/product/emails/batch with the test key, D30). The receiver
// answers 200 and notes when each delivery arrived; the latency is arrival
// minus the payload's createdAt, the time the event was recorded (D47).
// At the end every delivery row must be `success` after one attempt.
//
// Modes:
//
//	stream    send at -rate deliveries/s (through -hooks webhooks) for a
//	          warm-up and a measured window: deliveries/s and latency
//	capacity  with the webhooks paused, record -emails emails' events
//	          (deliveries wait as pending, D50), then resume the webhooks
//	          and time the deliveries alone: what delivery can do when
//	          recording events is not what limits it
//
// It prints a Markdown result block for docs/benchmarks-events.md.
// Everything listens on 127.0.0.1 only, and every loop is bounded in time.
//
//	go run ./bench/webhooks -store sqlite -hooks 1 -outcome clicked -rate 2000
package main
