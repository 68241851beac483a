package health

// Recommendation codes (D33). Each has a localized message under the id
// "health.<code>" in internal/i18n/locales.
const (
	CodePublishSPF        = "publish_spf"
	CodePublishDKIM       = "publish_dkim"
	CodePublishOwnership  = "publish_ownership"
	CodePublishDMARC      = "publish_dmarc"
	CodeBlocklisted       = "blocklisted"
	CodeHighBounceRate    = "high_bounce_rate"
	CodeHighComplaintRate = "high_complaint_rate"
	CodeLowVolume         = "low_volume"
	CodeAllGood           = "all_good"
)

// Codes lists every recommendation code, so tests can check each one has a
// message in every language.
func Codes() []string {
	codes := []string{
		CodePublishSPF,
		CodePublishDKIM,
		CodePublishOwnership,
		CodePublishDMARC,
		CodeBlocklisted,
		CodeHighBounceRate,
		CodeHighComplaintRate,
		CodeLowVolume,
		CodeAllGood,
	}
	for _, cause := range senderCauses {
		codes = append(codes, senderFailureCode(cause))
	}
	return codes
}

// Severities of a recommendation (D33), from least to most urgent.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// messagePrefix namespaces the recommendation messages in the catalogs.
const messagePrefix = "health."

// MessageID is the catalog id of the message of code.
func MessageID(code string) string { return messagePrefix + code }

// Recommendation is one piece of advice of the diagnostic. The caller
// renders MessageID with Data in the request's language; Data holds only
// strings and numbers, so it survives a JSON round trip unchanged.
type Recommendation struct {
	Code      string
	Severity  string
	MessageID string
	Data      map[string]any
}

// newRecommendation fills MessageID from code.
func newRecommendation(code, severity string, data map[string]any) Recommendation {
	return Recommendation{Code: code, Severity: severity, MessageID: MessageID(code), Data: data}
}

// severityRank orders severities, most urgent first.
func severityRank(severity string) int {
	switch severity {
	case SeverityCritical:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}
