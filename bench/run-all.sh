#!/usr/bin/env bash
# Runs every scenario of docs/benchmarks.md twice on both stores, one after
# the other (they share the machine's cores), against one binary built
# once, and writes each result block to $OUT (default ./bench-results).
# Takes about half an hour when delivery is slow; e2e waits at most 4 min.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench-results}
mkdir -p "$OUT"
BIN=$(mktemp -d)/carteiro
go build -buildvcs=auto -o "$BIN" ./cmd/carteiro
for scenario in accept batch e2e; do
	for store in sqlite postgres; do
		for run in 1 2; do
			echo "== $scenario $store run $run" >&2
			go run ./bench/load -store "$store" -scenario "$scenario" -binary "$BIN" >"$OUT/$scenario-$store-$run.md"
		done
	done
done
rm -rf "$(dirname "$BIN")"
cat "$OUT"/*.md
