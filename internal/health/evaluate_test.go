package health

import (
	"testing"

	"github.com/carteiro/carteiro"
)

const testBounceHost = "bounces.carteiro.test"

// testRecords are the D31 records of example.com.
func testRecords() []carteiro.DNSRecord {
	d := carteiro.Domain{Name: "example.com", DKIMSelector: "cart1", DKIMPublicKey: "MIIBKEY", OwnershipToken: "tok123"}
	return d.Records(testBounceHost)
}

// passing returns checks where every record passes except those given
// with another status; carteiro.CheckStatus("") drops the check.
func passing(overrides map[string]carteiro.CheckStatus) carteiro.DomainChecks {
	checks := carteiro.DomainChecks{}
	for _, r := range testRecords() {
		checks[r.Record] = carteiro.RecordCheck{Status: carteiro.CheckPass, Expected: r.Value, Found: []string{r.Value}}
	}
	for kind, status := range overrides {
		if status == "" {
			delete(checks, kind)
			continue
		}
		checks[kind] = carteiro.RecordCheck{Status: status}
	}
	return checks
}

// healthyMetrics are a month of clean sending.
var healthyMetrics = Metrics{WindowDays: 30, Sent: 10000, Bounced: 50, Complained: 2}

type codeSeverity struct{ code, severity string }

func TestEvaluate(t *testing.T) {
	t.Parallel()
	listed := Listing{List: "zen.spamhaus.org", Target: "192.0.2.1", Listed: true, Detail: "spam source"}
	clean := Listing{List: "bl.spamcop.net", Target: "192.0.2.1"}
	failed := Listing{List: "b.barracudacentral.org", Target: "192.0.2.1", Detail: DetailLookupFailed}

	tests := []struct {
		name      string
		checks    carteiro.DomainChecks
		listings  []Listing
		metrics   Metrics
		wantScore int
		want      []codeSeverity
	}{
		{
			name: "all good", checks: passing(nil), listings: []Listing{clean, failed}, metrics: healthyMetrics,
			wantScore: 100, want: []codeSeverity{{CodeAllGood, SeverityInfo}},
		},
		{
			name: "spf failing", checks: passing(map[string]carteiro.CheckStatus{"spf": carteiro.CheckFail}), metrics: healthyMetrics,
			wantScore: 75, want: []codeSeverity{{CodePublishSPF, SeverityCritical}},
		},
		{
			name: "dkim pending counts as failing", checks: passing(map[string]carteiro.CheckStatus{"dkim": carteiro.CheckPending}), metrics: healthyMetrics,
			wantScore: 75, want: []codeSeverity{{CodePublishDKIM, SeverityCritical}},
		},
		{
			name: "ownership never checked", checks: passing(map[string]carteiro.CheckStatus{"ownership": ""}), metrics: healthyMetrics,
			wantScore: 75, want: []codeSeverity{{CodePublishOwnership, SeverityCritical}},
		},
		{
			name: "every required record failing, in D31 order", metrics: healthyMetrics,
			checks:    passing(map[string]carteiro.CheckStatus{"spf": carteiro.CheckFail, "dkim": carteiro.CheckFail, "ownership": carteiro.CheckFail}),
			wantScore: 25,
			want:      []codeSeverity{{CodePublishOwnership, SeverityCritical}, {CodePublishDKIM, SeverityCritical}, {CodePublishSPF, SeverityCritical}},
		},
		{
			name: "dmarc missing", checks: passing(map[string]carteiro.CheckStatus{"dmarc": carteiro.CheckFail}), metrics: healthyMetrics,
			wantScore: 90, want: []codeSeverity{{CodePublishDMARC, SeverityWarning}},
		},
		{
			name: "one listing among clean and failed look-ups", checks: passing(nil), listings: []Listing{clean, listed, failed}, metrics: healthyMetrics,
			wantScore: 80, want: []codeSeverity{{CodeBlocklisted, SeverityCritical}},
		},
		{
			name: "two listings", checks: passing(nil), listings: []Listing{listed, listed}, metrics: healthyMetrics,
			wantScore: 60, want: []codeSeverity{{CodeBlocklisted, SeverityCritical}, {CodeBlocklisted, SeverityCritical}},
		},
		{
			name: "bounce rate at 2% is fine", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 1000, Bounced: 20},
			wantScore: 100, want: []codeSeverity{{CodeAllGood, SeverityInfo}},
		},
		{
			name: "bounce rate above 2%", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 1000, Bounced: 21},
			wantScore: 85, want: []codeSeverity{{CodeHighBounceRate, SeverityWarning}},
		},
		{
			name: "bounce rate above 5% replaces the warning", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 1000, Bounced: 51},
			wantScore: 70, want: []codeSeverity{{CodeHighBounceRate, SeverityCritical}},
		},
		{
			name: "complaint rate at 0.1% is fine", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 10000, Complained: 10},
			wantScore: 100, want: []codeSeverity{{CodeAllGood, SeverityInfo}},
		},
		{
			name: "complaint rate above 0.1%", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 10000, Complained: 11},
			wantScore: 85, want: []codeSeverity{{CodeHighComplaintRate, SeverityWarning}},
		},
		{
			name: "complaint rate above 0.3% replaces the warning", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 10000, Complained: 31},
			wantScore: 70, want: []codeSeverity{{CodeHighComplaintRate, SeverityCritical}},
		},
		{
			name: "low volume ignores the rates", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 99, Bounced: 50, Complained: 20},
			wantScore: 100, want: []codeSeverity{{CodeLowVolume, SeverityInfo}},
		},
		{
			name: "nothing sent", checks: passing(nil), metrics: Metrics{},
			wantScore: 100, want: []codeSeverity{{CodeLowVolume, SeverityInfo}},
		},
		{
			name: "100 sends are enough", checks: passing(nil), metrics: Metrics{WindowDays: 30, Sent: 100, Bounced: 3},
			wantScore: 85, want: []codeSeverity{{CodeHighBounceRate, SeverityWarning}},
		},
		{
			name: "most urgent first", checks: passing(map[string]carteiro.CheckStatus{"dmarc": carteiro.CheckFail}),
			listings: []Listing{listed}, metrics: Metrics{WindowDays: 30, Sent: 10},
			wantScore: 70,
			want:      []codeSeverity{{CodeBlocklisted, SeverityCritical}, {CodePublishDMARC, SeverityWarning}, {CodeLowVolume, SeverityInfo}},
		},
		{
			name: "clamped at zero",
			checks: passing(map[string]carteiro.CheckStatus{
				"spf": carteiro.CheckFail, "dkim": carteiro.CheckFail, "ownership": carteiro.CheckPending, "dmarc": carteiro.CheckFail,
			}),
			listings:  []Listing{listed, listed},
			metrics:   Metrics{WindowDays: 30, Sent: 1000, Bounced: 100, Complained: 10},
			wantScore: 0, // 100 - 75 - 10 - 40 - 30 - 30 = -85
			want: []codeSeverity{
				{CodePublishOwnership, SeverityCritical}, {CodePublishDKIM, SeverityCritical}, {CodePublishSPF, SeverityCritical},
				{CodeBlocklisted, SeverityCritical}, {CodeBlocklisted, SeverityCritical},
				{CodeHighBounceRate, SeverityCritical}, {CodeHighComplaintRate, SeverityCritical},
				{CodePublishDMARC, SeverityWarning},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			score, recs := Evaluate(Input{Checks: tt.checks, Records: testRecords(), Listings: tt.listings, Metrics: tt.metrics})
			if score != tt.wantScore {
				t.Errorf("score = %d, want %d", score, tt.wantScore)
			}
			got := make([]codeSeverity, len(recs))
			for i, r := range recs {
				got[i] = codeSeverity{r.Code, r.Severity}
				if r.MessageID != "health."+r.Code {
					t.Errorf("%s: MessageID %q", r.Code, r.MessageID)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("recommendations = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("recommendations = %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

func TestEvaluateIsDeterministic(t *testing.T) {
	t.Parallel()
	in := Input{
		Checks:   passing(map[string]carteiro.CheckStatus{"spf": carteiro.CheckFail, "dmarc": carteiro.CheckPending}),
		Records:  testRecords(),
		Listings: []Listing{{List: "a", Target: "x", Listed: true}, {List: "b", Target: "y", Listed: true}},
		Metrics:  Metrics{Sent: 1000, Bounced: 30, Complained: 2},
	}
	score, first := Evaluate(in)
	for range 20 {
		again, recs := Evaluate(in)
		if again != score || len(recs) != len(first) {
			t.Fatalf("Evaluate changed: %d %v vs %d %v", again, recs, score, first)
		}
		for i := range recs {
			if recs[i].Code != first[i].Code || recs[i].Data["List"] != first[i].Data["List"] {
				t.Fatalf("order changed at %d: %v vs %v", i, recs[i], first[i])
			}
		}
	}
}

func TestEvaluateRecommendationData(t *testing.T) {
	t.Parallel()
	in := Input{
		Checks:   passing(map[string]carteiro.CheckStatus{"spf": carteiro.CheckFail, "dmarc": carteiro.CheckFail}),
		Records:  testRecords(),
		Listings: []Listing{{List: "zen.spamhaus.org", Target: "192.0.2.1", Listed: true, Detail: "spam source"}},
		Metrics:  Metrics{WindowDays: 30, Sent: 1000, Bounced: 34, Complained: 2},
	}
	_, recs := Evaluate(in)
	byCode := map[string]Recommendation{}
	for _, r := range recs {
		byCode[r.Code] = r
	}

	spf := byCode[CodePublishSPF].Data
	if spf["Host"] != "bounces.example.com" || spf["Value"] != testBounceHost || spf["Type"] != "CNAME" || spf["Status"] != "fail" {
		t.Errorf("publish_spf data = %v", spf)
	}
	if dmarc := byCode[CodePublishDMARC].Data; dmarc["Host"] != "_dmarc.example.com" || dmarc["Value"] != "v=DMARC1; p=none;" {
		t.Errorf("publish_dmarc data = %v", dmarc)
	}
	if bl := byCode[CodeBlocklisted].Data; bl["List"] != "zen.spamhaus.org" || bl["Target"] != "192.0.2.1" || bl["Detail"] != "spam source" {
		t.Errorf("blocklisted data = %v", bl)
	}
	bounce := byCode[CodeHighBounceRate].Data
	if bounce["Rate"] != "3.4%" || bounce["RateComma"] != "3,4%" || bounce["Days"] != 30 {
		t.Errorf("high_bounce_rate data = %v", bounce)
	}
	if comp := byCode[CodeHighComplaintRate].Data; comp["Rate"] != "0.2%" || comp["RateComma"] != "0,2%" {
		t.Errorf("high_complaint_rate data = %v", comp)
	}

	_, recs = Evaluate(Input{Checks: passing(nil), Records: testRecords(), Metrics: Metrics{Sent: 7}})
	low := recs[0].Data
	if recs[0].Code != CodeLowVolume || low["Sent"] != int64(7) || low["Minimum"] != 100 || low["Days"] != DefaultWindowDays {
		t.Errorf("low_volume = %+v", recs[0])
	}
}

func TestMetricsRates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m                 Metrics
		bounce, complaint float64
	}{
		{Metrics{}, 0, 0},
		{Metrics{Bounced: 5, Complained: 1}, 0, 0}, // nothing sent: 0, not NaN or Inf
		{Metrics{Sent: 200, Bounced: 5, Complained: 1}, 0.025, 0.005},
		{Metrics{Sent: 10, Bounced: 12, Complained: 10}, 1, 1}, // clamped
		{Metrics{Sent: 10, Bounced: -1}, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.m.BounceRate(); got != tt.bounce {
			t.Errorf("%+v BounceRate = %v, want %v", tt.m, got, tt.bounce)
		}
		if got := tt.m.ComplaintRate(); got != tt.complaint {
			t.Errorf("%+v ComplaintRate = %v, want %v", tt.m, got, tt.complaint)
		}
	}
}

func TestFormatPercent(t *testing.T) {
	t.Parallel()
	tests := map[float64]string{0: "0%", 0.034: "3.4%", 0.0015: "0.15%", 0.05: "5%", 1: "100%", 0.12345: "12.35%"}
	for in, want := range tests {
		if got := formatPercent(in); got != want {
			t.Errorf("formatPercent(%v) = %q, want %q", in, got, want)
		}
	}
}
