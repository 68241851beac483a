#!/bin/sh
# Fault runs of the real binary on the local PostgreSQL (never stopped: the
# database outage is a TCP proxy cut between Carteiro and PostgreSQL).
#
#   kill-worker   an API node and two workers (default CARTEIRO_JOB_TIMEOUT);
#                 one worker is SIGKILLed mid-delivery
#   cut-database  one node whose PostgreSQL connection is cut for FAULT_CUT
#                 (default 15s) under load, then restored
#
# Each prints accepted, delivered, lost and duplicated emails and the
# recovery time. Settings: FAULT_EMAILS (3000), FAULT_CUT (15s),
# FAULT_SMTP_STALL (100ms, the SMTP server's pause before answering DATA).
#
#   bench/faults/run.sh            # both
#   bench/faults/run.sh kill       # one of them
set -eu
cd "$(dirname "$0")/../.."
case "${1:-all}" in
kill) run='TestFaultRunKillWorker$' ;;
cut) run='TestFaultRunCutDatabase$' ;;
all) run='TestFaultRun' ;;
*) echo "usage: $0 [kill|cut|all]" >&2; exit 2 ;;
esac
CARTEIRO_FAULT_RUN=1 go test -count=1 -timeout 20m -run "$run" -v ./e2e/ | grep -E '^FAULT|^(--- |ok|FAIL)'
