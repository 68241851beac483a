package health

// SenderFailure is one cause of recent refusals that blamed the sending
// side (D69, bounce.Cause): how many recipients failed for it in the
// window, and the most recent reply, verbatim.
type SenderFailure struct {
	Cause string
	Count int
	Reply string
}

// senderCauses are bounce.Cause's causes; each has a recommendation code
// refused_<cause> with a message saying what to fix.
var senderCauses = []string{"helo", "ptr", "spf", "dkim", "dmarc", "authentication", "sender_address", "protocol", "mail_system", "routing"}

// penaltySenderFailure is taken once per cause: receivers refuse mail
// because of the sending side's configuration, and will go on doing so.
const penaltySenderFailure = 15

// senderFailureCode is the recommendation code of a cause.
func senderFailureCode(cause string) string { return "refused_" + cause }

// senderFailureRecommendations names each cause with its count and reply
// (D69: "domain health names the cause"). The configuration causes
// (helo, ptr, spf, dkim, dmarc, authentication) are critical: every
// receiver that checks them refuses; the others are warnings.
func senderFailureRecommendations(failures []SenderFailure, days int) []Recommendation {
	var recs []Recommendation
	for _, f := range failures {
		severity := SeverityWarning
		switch f.Cause {
		case "helo", "ptr", "spf", "dkim", "dmarc", "authentication":
			severity = SeverityCritical
		}
		recs = append(recs, newRecommendation(senderFailureCode(f.Cause), severity, map[string]any{
			"Count": f.Count, "Reply": f.Reply, "Days": days,
		}))
	}
	return recs
}
