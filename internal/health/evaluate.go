package health

import (
	"slices"
	"strconv"
	"strings"

	"github.com/carteiro/carteiro"
)

// The scoring of D33. Evaluate starts from maxScore and subtracts:
//
//   - penaltyRequiredRecord for each required record of D31 that does not
//     pass (spf, the return-path CNAME; dkim; ownership), critical: without
//     it the domain cannot be verified, or stops being verified (D32). A
//     pending check (no trustworthy DNS answer) counts as failing too: the
//     score reflects what could be confirmed;
//   - penaltyDMARC when the recommended DMARC record does not pass, warning;
//   - penaltyListing for each blocklist listing, critical;
//   - for the bounce rate, penaltyRateCritical (critical) above 5 %, else
//     penaltyRateWarning (warning) above 2 %;
//   - for the complaint rate, penaltyRateCritical (critical) above 0.3 %,
//     else penaltyRateWarning (warning) above 0.1 %;
//   - penaltySenderFailure for each cause of recent refusals that blamed
//     the sending side (D69), refused_<cause>, critical for the
//     authentication causes, else warning.
//
// Rates only count from minMeaningfulSent messages in the window; below
// that, one info recommendation (low_volume) says so and costs nothing. The
// score is clamped to 0..maxScore. When no recommendation applies, the only
// one is all_good (info). Recommendations come most urgent first, in input
// order within a severity, so equal inputs give equal outputs.
const (
	maxScore              = 100
	penaltyRequiredRecord = 25
	penaltyDMARC          = 10
	penaltyListing        = 20
	penaltyRateWarning    = 15
	penaltyRateCritical   = 30

	bounceRateWarning     = 0.02
	bounceRateCritical    = 0.05
	complaintRateWarning  = 0.001
	complaintRateCritical = 0.003

	minMeaningfulSent = 100
)

// Input is what the diagnostic looks at.
type Input struct {
	// Checks are the record checks of D32, by record kind.
	Checks carteiro.DomainChecks
	// Records are the records the domain should publish (Domain.Records),
	// which say which checks are required.
	Records []carteiro.DNSRecord
	// Listings are the answers of CheckBlocklists.
	Listings []Listing
	// Metrics are the sending figures of the window.
	Metrics Metrics
	// SenderFailures are the causes of the window's refusals that blamed
	// the sending side, most frequent first (D69).
	SenderFailures []SenderFailure
}

// Evaluate scores a domain from 0 to 100 and lists what to improve,
// following the scoring documented above. It is deterministic and does no
// I/O.
func Evaluate(in Input) (score int, recs []Recommendation) {
	score = maxScore
	add := func(penalty int, rec Recommendation) {
		score -= penalty
		recs = append(recs, rec)
	}

	for _, record := range in.Records {
		check := in.Checks[record.Record]
		if check.Status == carteiro.CheckPass {
			continue
		}
		data := recordData(record, check)
		switch {
		case record.Required:
			add(penaltyRequiredRecord, newRecommendation("publish_"+record.Record, SeverityCritical, data))
		case record.Record == carteiro.RecordDMARC:
			add(penaltyDMARC, newRecommendation(CodePublishDMARC, SeverityWarning, data))
		}
	}

	for _, listing := range in.Listings {
		if listing.Listed {
			add(penaltyListing, newRecommendation(CodeBlocklisted, SeverityCritical, map[string]any{
				"List": listing.List, "Target": listing.Target, "Detail": listing.Detail,
			}))
		}
	}

	m := in.Metrics
	for _, rec := range senderFailureRecommendations(in.SenderFailures, windowDays(m)) {
		add(penaltySenderFailure, rec)
	}

	if m.Sent < minMeaningfulSent {
		recs = append(recs, newRecommendation(CodeLowVolume, SeverityInfo, map[string]any{
			"Sent": m.Sent, "Minimum": minMeaningfulSent, "Days": windowDays(m),
		}))
	} else {
		if penalty, severity, ok := rateSeverity(m.BounceRate(), bounceRateWarning, bounceRateCritical); ok {
			add(penalty, newRecommendation(CodeHighBounceRate, severity, rateData(m.BounceRate(), m)))
		}
		if penalty, severity, ok := rateSeverity(m.ComplaintRate(), complaintRateWarning, complaintRateCritical); ok {
			add(penalty, newRecommendation(CodeHighComplaintRate, severity, rateData(m.ComplaintRate(), m)))
		}
	}

	if len(recs) == 0 {
		recs = append(recs, newRecommendation(CodeAllGood, SeverityInfo, map[string]any{}))
	}
	slices.SortStableFunc(recs, func(a, b Recommendation) int {
		return severityRank(a.Severity) - severityRank(b.Severity)
	})
	return min(max(score, 0), maxScore), recs
}

// rateSeverity grades a rate against its two thresholds; ok is false when
// the rate is healthy. The critical penalty replaces the warning one.
func rateSeverity(rate, warning, critical float64) (penalty int, severity string, ok bool) {
	switch {
	case rate > critical:
		return penaltyRateCritical, SeverityCritical, true
	case rate > warning:
		return penaltyRateWarning, SeverityWarning, true
	}
	return 0, "", false
}

// recordData is what a publish_* message can show about the record.
func recordData(record carteiro.DNSRecord, check carteiro.RecordCheck) map[string]any {
	return map[string]any{
		"Record": record.Record,
		"Type":   record.Type,
		"Host":   record.Host,
		"Value":  record.Value,
		"Status": string(check.Status),
	}
}

// rateData is what a rate message can show. Rate uses a decimal point and
// RateComma a decimal comma, so each catalog picks its language's
// convention without the domain knowing the language.
func rateData(rate float64, m Metrics) map[string]any {
	percent := formatPercent(rate)
	return map[string]any{
		"Rate":      percent,
		"RateComma": strings.Replace(percent, ".", ",", 1),
		"Sent":      m.Sent,
		"Days":      windowDays(m),
	}
}

// formatPercent shows a fraction as a percentage with at most two decimals,
// trailing zeros dropped: 0.034 → "3.4%", 0.0015 → "0.15%", 0.05 → "5%".
func formatPercent(fraction float64) string {
	s := strconv.FormatFloat(fraction*100, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return s + "%"
}

// windowDays is the window the metrics cover, D33's 30 days when unset.
func windowDays(m Metrics) int {
	if m.WindowDays > 0 {
		return m.WindowDays
	}
	return DefaultWindowDays
}
