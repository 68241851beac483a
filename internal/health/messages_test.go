package health_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/health"
	"github.com/carteiro/carteiro/internal/i18n"
)

// everyRecommendation returns one recommendation of every code, made by
// Evaluate itself so the data is what production renders.
func everyRecommendation(t *testing.T) map[string]health.Recommendation {
	t.Helper()
	d := carteiro.Domain{Name: "example.com", DKIMSelector: "cart1", DKIMPublicKey: "MIIBKEY", OwnershipToken: "tok123"}
	records := d.Records("bounces.carteiro.test")
	failing := carteiro.DomainChecks{}
	passing := carteiro.DomainChecks{}
	for _, r := range records {
		failing[r.Record] = carteiro.RecordCheck{Status: carteiro.CheckFail}
		passing[r.Record] = carteiro.RecordCheck{Status: carteiro.CheckPass}
	}
	inputs := []health.Input{
		{
			Checks: failing, Records: records,
			Listings: []health.Listing{{List: "zen.spamhaus.org", Target: "192.0.2.1", Listed: true}},
			Metrics:  health.Metrics{WindowDays: 30, Sent: 1000, Bounced: 34, Complained: 2},
		},
		{Checks: passing, Records: records, Metrics: health.Metrics{WindowDays: 30, Sent: 7}},
		{Checks: passing, Records: records, Metrics: health.Metrics{WindowDays: 30, Sent: 1000}},
		{Checks: passing, Records: records, Metrics: health.Metrics{WindowDays: 30, Sent: 1000}, SenderFailures: everySenderFailure()},
	}
	byCode := map[string]health.Recommendation{}
	for _, in := range inputs {
		_, recs := health.Evaluate(in)
		for _, r := range recs {
			byCode[r.Code] = r
		}
	}
	for _, code := range health.Codes() {
		if _, ok := byCode[code]; !ok {
			t.Fatalf("no input produced %s", code)
		}
	}
	return byCode
}

// TestEveryRecommendationHasMessages renders each code in each language: the
// text must exist, use only data Evaluate provides, and differ by language.
func TestEveryRecommendationHasMessages(t *testing.T) {
	t.Parallel()
	catalog, err := i18n.New()
	if err != nil {
		t.Fatalf("i18n.New: %v", err)
	}
	for code, rec := range everyRecommendation(t) {
		seen := map[string]i18n.Lang{}
		for _, lang := range i18n.Langs() {
			msg := catalog.Text(lang, rec.MessageID, rec.Data)
			if msg == rec.MessageID || strings.TrimSpace(msg) == "" {
				t.Errorf("%s/%s: no message", lang, code)
			}
			if strings.Contains(msg, "<no value>") || strings.Contains(msg, "{{") {
				t.Errorf("%s/%s: placeholder without data: %q", lang, code, msg)
			}
			if other, dup := seen[msg]; dup {
				t.Errorf("%s/%s: same text as %s: %q", lang, code, other, msg)
			}
			seen[msg] = lang
		}
	}
}

// TestMessagesShowTheData checks the placeholders are filled with the
// language's decimal separator, also after the data went through JSON (as
// when a diagnostic is stored and rendered later).
func TestMessagesShowTheData(t *testing.T) {
	t.Parallel()
	catalog, err := i18n.New()
	if err != nil {
		t.Fatalf("i18n.New: %v", err)
	}
	recs := everyRecommendation(t)
	roundTrip := func(data map[string]any) map[string]any {
		raw, err := json.Marshal(data)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}
		return out
	}
	tests := []struct {
		lang i18n.Lang
		code string
		want []string
	}{
		{i18n.En, health.CodeHighBounceRate, []string{"3.4%", "30 days"}},
		{i18n.PtBR, health.CodeHighBounceRate, []string{"3,4%", "30 dias"}},
		{i18n.Es, health.CodeHighBounceRate, []string{"3,4%", "30 días"}},
		{i18n.En, health.CodeHighComplaintRate, []string{"0.2%"}},
		{i18n.PtBR, health.CodeHighComplaintRate, []string{"0,2%"}},
		{i18n.En, health.CodeBlocklisted, []string{"192.0.2.1", "zen.spamhaus.org"}},
		{i18n.Es, health.CodeBlocklisted, []string{"192.0.2.1", "zen.spamhaus.org"}},
		{i18n.PtBR, health.CodePublishSPF, []string{"bounces.example.com", "bounces.carteiro.test"}},
		{i18n.En, health.CodePublishDMARC, []string{"_dmarc.example.com", "v=DMARC1; p=none;"}},
		{i18n.PtBR, health.CodeLowVolume, []string{": 7.", "100"}},
	}
	for _, tt := range tests {
		rec := recs[tt.code]
		for _, data := range []map[string]any{rec.Data, roundTrip(rec.Data)} {
			msg := catalog.Text(tt.lang, rec.MessageID, data)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s/%s: %q lacks %q", tt.lang, tt.code, msg, w)
				}
			}
		}
	}
}

// everySenderFailure is one failure of every cause bounce.Cause names.
func everySenderFailure() []health.SenderFailure {
	var out []health.SenderFailure
	for _, code := range health.Codes() {
		if cause, ok := strings.CutPrefix(code, "refused_"); ok {
			out = append(out, health.SenderFailure{Cause: cause, Count: 3, Reply: "550 5.7.25 refused"})
		}
	}
	return out
}
