package app

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDeliveryJobsKeepTheirLaneAcrossTheRename: jobs stored before the lane
// field was renamed ("broadcast") still decode into the background lane,
// so a broadcast's queued or retrying emails keep yielding to
// transactional email after an upgrade; new jobs store "background".
func TestDeliveryJobsKeepTheirLaneAcrossTheRename(t *testing.T) {
	for _, c := range []struct {
		stored     string
		background bool
	}{
		{`{"emailId":"e1","broadcast":true}`, true},
		{`{"emailId":"e1","background":true}`, true},
		{`{"emailId":"e1"}`, false},
		{`{"emailId":"e1","broadcast":false}`, false},
	} {
		var j DeliverJob
		if err := json.Unmarshal([]byte(c.stored), &j); err != nil || j.EmailID != "e1" || j.Background != c.background {
			t.Errorf("DeliverJob %s: %+v %v, want background %v", c.stored, j, err, c.background)
		}
		group := strings.Replace(c.stored, `"emailId":"e1"`, `"emailIds":["e1","e2"]`, 1)
		var g DeliverGroupJob
		if err := json.Unmarshal([]byte(group), &g); err != nil || len(g.EmailIDs) != 2 || g.Background != c.background {
			t.Errorf("DeliverGroupJob %s: %+v %v, want background %v", group, g, err, c.background)
		}
	}
	b, _ := json.Marshal(DeliverJob{EmailID: "e1", Background: true})
	if string(b) != `{"emailId":"e1","background":true}` {
		t.Errorf("stored as %s", b)
	}
	b, _ = json.Marshal(DeliverGroupJob{EmailIDs: []string{"e1"}, Background: true})
	if string(b) != `{"emailIds":["e1"],"background":true}` {
		t.Errorf("stored as %s", b)
	}
}
