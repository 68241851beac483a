package httpapi

import (
	"net/http"
	"time"

	"github.com/carteiro/carteiro/internal/app"
)

type statsCountsJSON struct {
	Sent       int64 `json:"sent"`
	Delivered  int64 `json:"delivered"`
	Failed     int64 `json:"failed"`
	Bounced    int64 `json:"bounced"`
	Complained int64 `json:"complained"`
	Opened     int64 `json:"opened"`
	Clicked    int64 `json:"clicked"`
}

func toCounts(b app.StatsBucket) statsCountsJSON {
	return statsCountsJSON{Sent: b.Sent, Delivered: b.Delivered, Failed: b.Failed, Bounced: b.Bounced,
		Complained: b.Complained, Opened: b.Opened, Clicked: b.Clicked}
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := app.StatsQuery{Granularity: q.Get("granularity"), DomainID: q.Get("domainId"), Tag: q.Get("tag")}
	if err := queryTimes(q, timeParam{"startDate", &query.Start}, timeParam{"endDate", &query.End}); err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.app.GetStats(r.Context(), principalOf(r.Context()), query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The date is formatted here, as time.Time's MarshalJSON would, but
	// without encoding/json checking each of a year of days' output again.
	type bucketJSON struct {
		Date string `json:"date"`
		statsCountsJSON
	}
	series := make([]bucketJSON, len(st.Series))
	for i, b := range st.Series {
		series[i] = bucketJSON{Date: b.Start.Format(time.RFC3339Nano), statsCountsJSON: toCounts(b)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"startDate": st.Start, "endDate": st.End, "granularity": st.Granularity,
		"totals": toCounts(st.Totals), "series": series})
}
