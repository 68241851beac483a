// Package e2e holds Carteiro's black-box end-to-end tests: each starts the
// real server on 127.0.0.1 port 0, on SQLite and on PostgreSQL, and drives it
// over HTTP as a client would. Every response is checked against
// docs/openapi.yaml by the harness.
package e2e
