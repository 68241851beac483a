package main

import "github.com/carteiro/carteiro/bench/internal/child"

// serverEnv runs an API node with no limits in the way and nothing that
// reaches outside 127.0.0.1.
func serverEnv(dbURL, inflight string) []string {
	settings := map[string]string{
		"CARTEIRO_HTTP_ADDR":       "127.0.0.1:0",
		"CARTEIRO_DATABASE_URL":    dbURL,
		"CARTEIRO_DNS_SERVER":      "127.0.0.1:9", // discard: nothing answers
		"CARTEIRO_INBOUND_ADDR":    "",
		"CARTEIRO_SUBMISSION_ADDR": "",
		"CARTEIRO_RATE_LIMIT_KEY":  "1000000,1000000",
		"CARTEIRO_RATE_LIMIT_IP":   "1000000,1000000",
		"CARTEIRO_WARMUP":          "off",
		"CARTEIRO_LOG_FORMAT":      "json",
	}
	if inflight != "" {
		settings["CARTEIRO_MAX_INFLIGHT_BYTES"] = inflight
	}
	return child.Env(settings)
}
