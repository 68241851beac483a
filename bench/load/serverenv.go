package main

import "github.com/carteiro/carteiro/bench/internal/child"

// serverEnv is the environment of the benchmarked server: relay delivery to
// the sink, counted as delivered on the sink's 250, no rate limits, no
// warmup quota, no inbound listener, and the SMTP submission listener
// (D74) only when submissionAddr is set (D56 names).
func serverEnv(dbURL, sinkAddr, dnsAddr, submissionAddr string) []string {
	settings := map[string]string{
		"CARTEIRO_HTTP_ADDR":                "127.0.0.1:0",
		"CARTEIRO_DATABASE_URL":             dbURL,
		"CARTEIRO_DELIVERY":                 "relay",
		"CARTEIRO_RELAY_URL":                "smtp+plain://" + sinkAddr,
		"CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true",
		"CARTEIRO_DNS_SERVER":               dnsAddr,
		"CARTEIRO_INBOUND_ADDR":             "",
		"CARTEIRO_SUBMISSION_ADDR":          submissionAddr,
		"CARTEIRO_RATE_LIMIT_KEY":           "1000000,1000000",
		"CARTEIRO_RATE_LIMIT_IP":            "1000000,1000000",
		"CARTEIRO_WARMUP":                   "off",
		"CARTEIRO_LOG_FORMAT":               "json",
	}
	return child.Env(settings)
}
