#!/usr/bin/env bash
# Runs every scenario of docs/benchmarks.md twice on both stores, one after
# the other (they share the machine's cores), against one binary built
# once (or $BIN when set), and writes each result block to $OUT (default: a
# new temporary directory).
# Takes about half an hour when delivery is slow; e2e waits at most 4 min.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d /tmp/carteiro-bench-results.XXXXXX)}
mkdir -p "$OUT"
TMP=$(mktemp -d)
if [ -z "${BIN:-}" ]; then
	BIN=$TMP/carteiro
	go build -buildvcs=auto -o "$BIN" ./cmd/carteiro
fi
for scenario in accept batch e2e; do
	for store in sqlite postgres; do
		for run in 1 2; do
			echo "== $scenario $store run $run" >&2
			go run ./bench/load -store "$store" -scenario "$scenario" -binary "$BIN" >"$OUT/$scenario-$store-$run.md"
		done
	done
done
rm -rf "$TMP"
cat "$OUT"/*.md
echo "results in $OUT" >&2
