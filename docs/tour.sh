#!/usr/bin/env bash
# The README's tour ("A tour" in README.md) as a script: the same commands,
# in the same order, each preceded here by the HTTP status it must answer.
# A status that differs stops the script with a message naming the command.
# e2e/tour_test.go runs it against a real server on both stores, and checks
# that every command of the README's tour appears here in order, so the
# README and this script cannot drift apart.
#
# It needs a running server with the relay of step 5 (CARTEIRO_DELIVERY=relay
# and a catcher), and these settings in its environment:
#
#   KEY, TEST_KEY  the live and the test key printed on the first start
#   API            the API's base (http://localhost:8080/v1/product)
#   HOOK_URL       step 6's HTTPS endpoint; a private one needs the server
#                  started with CARTEIRO_WEBHOOK_ALLOW_PRIVATE=true
#   TOUR_HOOK_URL  optional: where a test does the two things a person does
#                  by hand. GET $TOUR_HOOK_URL/publish-dns?domain=ID publishes
#                  the domain's records; GET $TOUR_HOOK_URL/sender-token?email=E
#                  prints the token mailed to E. Without it the script asks
#                  on the terminal.
set -euo pipefail

: "${KEY:?set KEY to the live key of the first start}"
: "${TEST_KEY:?set TEST_KEY to the test key of the first start}"
: "${HOOK_URL:?set HOOK_URL to an HTTPS endpoint that takes the webhook (step 6)}"
API=${API:-http://localhost:8080/v1/product}

tour_tmp=$(mktemp -d)
trap 'rm -rf "$tour_tmp"' EXIT

# step prints a step's title, so a failure shows where it happened.
step() {
	printf '\n=== %s\n' "$*" >&2
}

# expect sets the status the next curl must answer. It is kept in a file
# because most calls run inside $( ... | ...), a subshell.
expect() {
	printf '%s\n' "$1" >"$tour_tmp/expected"
}

# shown prints a command line with the keys cut short, for failure messages.
shown() {
	printf '%s ' "$@" | sed -E 's/(svc_(live|test)_)[A-Za-z0-9]+/\1.../g'
}

# curl stands in for the real curl in the README's commands: it prints the
# answer's body as `curl -s` does and fails unless the status is the one
# expect set, which it uses up (a curl with no expectation fails too).
curl() {
	local want status
	if [[ ! -f "$tour_tmp/expected" ]]; then
		printf 'tour.sh: FAILED: no expected status for: curl %s\n' "$(shown "$@")" >&2
		return 1
	fi
	want=$(<"$tour_tmp/expected")
	rm -f "$tour_tmp/expected"
	if ! status=$(command curl -o "$tour_tmp/answer" -w '%{http_code}' "$@"); then
		printf 'tour.sh: FAILED: curl could not reach the server: curl %s\n' "$(shown "$@")" >&2
		return 1
	fi
	cat "$tour_tmp/answer"
	if [[ "$status" != "$want" ]]; then
		printf '\ntour.sh: FAILED: status %s, want %s: curl %s\n' "$status" "$want" "$(shown "$@")" >&2
		return 1
	fi
	printf '  -> %s\n' "$status" >&2
}

# answer_has fails unless the last answer contains the text.
answer_has() {
	if ! grep -qF -- "$1" "$tour_tmp/answer"; then
		printf 'tour.sh: FAILED: the last answer lacks %s\n' "$1" >&2
		exit 1
	fi
}

# publish_records is what the reader does at their DNS provider.
publish_records() {
	if [[ -n "${TOUR_HOOK_URL:-}" ]]; then
		command curl -sSf "$TOUR_HOOK_URL/publish-dns?domain=$1" >/dev/null
	else
		read -rp "Publish the records above at your DNS provider, then press Enter: " </dev/tty
	fi
}

# sender_token is what the reader reads in their mail catcher.
sender_token() {
	local token
	if [[ -n "${TOUR_HOOK_URL:-}" ]]; then
		command curl -sSf "$TOUR_HOOK_URL/sender-token?email=$1"
	else
		read -rp "The token in the email to $1 (the end of its link): " token </dev/tty
		printf '%s\n' "$token"
	fi
}

idof() { sed -n 's/^{"id":"\([^"]*\)".*/\1/p'; }   # the "id" an answer starts with

step "1. Create a domain"
expect 201
ID=$(curl -s -X POST $API/domains -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"name":"example.com"}' | tee /dev/stderr | idof)
[[ -n "$ID" ]] || { echo "tour.sh: FAILED: no domain id" >&2; exit 1; }

step "2. Read it back"
expect 200
curl -s $API/domains/$ID -H "Authorization: Bearer $KEY"
answer_has '"dnsRecordsToPublish"'

step "3. Verify it"
expect 202
curl -s -X POST $API/domains/$ID/verify -H "Authorization: Bearer $KEY"
answer_has '"status":"pending"'
publish_records "$ID"
expect 202
curl -s -X POST $API/domains/$ID/verify -H "Authorization: Bearer $KEY"
answer_has '"status":"verified"'

step "4. Send an email"
expect 202
EMAIL=$(curl -s -X POST $API/emails -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" \
  -d '{"from":"Acme <hello@example.com>","to":["delivered@example.net"],"subject":"Hello","html":"<p>Hi there</p>"}' | tee /dev/stderr | idof)
[[ -n "$EMAIL" ]] || { echo "tour.sh: FAILED: no email id" >&2; exit 1; }
expect 200
curl -s $API/emails/$EMAIL -H "Authorization: Bearer $TEST_KEY"
expect 200
curl -s $API/emails/$EMAIL/events -H "Authorization: Bearer $TEST_KEY"

step "5. Send for real, through a relay"
expect 201
curl -s -X POST $API/senders -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"email":"me@example.org","displayName":"Me"}'
answer_has '"verificationToken":null'
TOKEN=$(sender_token me@example.org)
expect 200
curl -s -X POST $API/senders/verify -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"token":"'"$TOKEN"'"}'
expect 202
REAL=$(curl -s -X POST $API/emails -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"from":"Me <me@example.org>","to":["ana@example.net"],"subject":"Hello for real","html":"<p>Hi Ana</p>","tags":[{"name":"category","value":"welcome"}]}' | tee /dev/stderr | idof)
[[ -n "$REAL" ]] || { echo "tour.sh: FAILED: no email id" >&2; exit 1; }
expect 200
curl -s $API/emails/$REAL/events -H "Authorization: Bearer $KEY"

step "6. Register a webhook"
expect 201
HOOK=$(curl -s -X POST $API/webhooks -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"url":"'"$HOOK_URL"'","events":["email.sent","email.delivered","email.bounced","email.suppressed"],"secret":"change-me-to-a-long-random-secret"}' | tee /dev/stderr | idof)
[[ -n "$HOOK" ]] || { echo "tour.sh: FAILED: no webhook id" >&2; exit 1; }

step "7. Suppress an address"
expect 201
curl -s -X POST $API/suppressions -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"email":"bob@example.net"}'
expect 202
NEWS=$(curl -s -X POST $API/emails -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"from":"Me <me@example.org>","to":["bob@example.net","carla@example.net"],"subject":"News","text":"Hello again"}' | tee /dev/stderr | idof)
[[ -n "$NEWS" ]] || { echo "tour.sh: FAILED: no email id" >&2; exit 1; }
expect 200
curl -s $API/emails/$NEWS/events -H "Authorization: Bearer $KEY"
expect 200
curl -s $API/webhooks/$HOOK/deliveries -H "Authorization: Bearer $KEY"

step "8. Statistics"
expect 200
curl -s "$API/stats?granularity=month" -H "Authorization: Bearer $KEY"

step "Errors"
expect 409
curl -s -X POST $API/domains -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -H "Accept-Language: en" -d '{"name":"Example.COM."}'
answer_has '"code":"CONFLICT"'
expect 401
curl -s $API/domains -H "Accept-Language: en"
answer_has '"code":"MISSING_API_KEY"'

step "9. Templates"
expect 201
TEMPLATE=$(curl -s -X POST $API/templates -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" \
  -d '{"name":"welcome","subject":"Welcome, {{name}}","html":"<h1>Hi {{name}}</h1>{{#if plan}}<p>Your plan: {{plan}}</p>{{/if}}","variables":[{"name":"name"},{"name":"plan","defaultValue":"free"}]}' | tee /dev/stderr | idof)
[[ -n "$TEMPLATE" ]] || { echo "tour.sh: FAILED: no template id" >&2; exit 1; }
expect 202
WELCOME=$(curl -s -X POST $API/emails -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" \
  -d '{"from":"Me <me@example.org>","to":"ana@example.net","templateId":"'"$TEMPLATE"'","variables":{"name":"Ana"}}' | tee /dev/stderr | idof)
[[ -n "$WELCOME" ]] || { echo "tour.sh: FAILED: no email id" >&2; exit 1; }
expect 200
curl -s $API/emails/$WELCOME -H "Authorization: Bearer $TEST_KEY"
answer_has '"subject":"Welcome, Ana"'

step "10. A broadcast"
expect 201
AUDIENCE=$(curl -s -X POST $API/audiences -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" -d '{"name":"Newsletter"}' | tee /dev/stderr | idof)
[[ -n "$AUDIENCE" ]] || { echo "tour.sh: FAILED: no audience id" >&2; exit 1; }
expect 200
curl -s -X POST $API/audiences/$AUDIENCE/contacts/bulk -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" \
  -d '{"contacts":[{"email":"ana@example.net","firstName":"Ana"},{"email":"carla@example.net","firstName":"Carla"},{"email":"ANA@example.net"},{"email":"not-an-email"}]}'
answer_has '"inserted":2'
expect 201
BROADCAST=$(curl -s -X POST $API/broadcasts -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" \
  -d '{"audienceId":"'"$AUDIENCE"'","fromEmail":"News <news@example.org>","subject":"Hi {{contact.firstName}}","html":"<p>Hello {{contact.firstName}}, news inside.</p><p><a href=\"{{unsubscribeUrl}}\">Unsubscribe</a></p>"}' | tee /dev/stderr | idof)
[[ -n "$BROADCAST" ]] || { echo "tour.sh: FAILED: no broadcast id" >&2; exit 1; }
expect 202
curl -s -X POST $API/broadcasts/$BROADCAST/send -H "Authorization: Bearer $TEST_KEY"
expect 200
curl -s $API/broadcasts/$BROADCAST -H "Authorization: Bearer $TEST_KEY"

step "11. Receive email"
expect 200
curl -s -X POST $API/domains/$ID/inbound -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" -d '{"enabled":true}'
answer_has '"type":"MX"'
expect 200
curl -s $API/inbound-emails -H "Authorization: Bearer $KEY"
answer_has '"inboundEmails":[]'

printf '\ntour.sh: every step answered as the README says\n' >&2
