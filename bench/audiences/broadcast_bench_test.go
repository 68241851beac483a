package audiences

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

var broadcastContacts = flag.Int("contacts", 100000, "audience size of BenchmarkBroadcast")

// BenchmarkBroadcast measures a broadcast to a large audience end to end
// against the real server: the send call, every recipient handed to the
// queue (target: 10 s for 100,000), and every email DKIM-signed and
// delivered to a local SMTP sink (target: 150 s).
//
// Run: go test -run '^$' -bench Broadcast -benchtime 1x -timeout 30m ./bench/audiences/ [-contacts 100000]
func BenchmarkBroadcast(b *testing.B) {
	for _, backend := range testserver.Backends() {
		b.Run(string(backend), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				runBroadcast(b, backend, *broadcastContacts)
			}
		})
	}
}

func runBroadcast(b *testing.B, backend testserver.Backend, n int) {
	smtp := testutil.NewSMTPServer(b)
	ts := testserver.StartServer(b, backend, map[string]string{
		"CARTEIRO_DELIVERY": "relay", "CARTEIRO_RELAY_URL": "smtp+plain://" + smtp.Addr(),
		"CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true", "CARTEIRO_WARMUP": "off", "CARTEIRO_TRACKING": "false",
	})
	client := &http.Client{Timeout: 5 * time.Minute}
	call := func(method, path string, body any) map[string]any {
		var raw []byte
		if body != nil {
			raw, _ = json.Marshal(body)
		}
		req, _ := http.NewRequest(method, ts.URL+"/v1/product"+path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+ts.LiveKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode >= 300 {
			b.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
		}
		return out
	}
	d := call("POST", "/domains", map[string]any{"name": "bench.example"})
	for _, r := range d["records"].([]any) {
		rec := r.(map[string]any)
		if rec["type"] == "TXT" {
			ts.DNS.SetTXT(rec["host"].(string), rec["value"].(string))
		} else {
			ts.DNS.SetCNAME(rec["host"].(string), rec["value"].(string))
		}
	}
	call("POST", "/domains/"+d["id"].(string)+"/verify", nil)
	aud := call("POST", "/audiences", map[string]any{"name": "bench"})["id"].(string)
	for start := 0; start < n; start += 10000 {
		contacts := make([]map[string]any, min(10000, n-start))
		for i := range contacts {
			contacts[i] = map[string]any{"email": fmt.Sprintf("r%06d@sink.example", start+i), "firstName": fmt.Sprintf("R%d", start+i)}
		}
		call("POST", "/audiences/"+aud+"/contacts/bulk", map[string]any{"contacts": contacts})
	}
	bc := call("POST", "/broadcasts", map[string]any{"audienceId": aud, "fromEmail": "news@bench.example",
		"subject": "Hello {{contact.firstName}}", "html": "<p>Hi {{contact.firstName}}, this is the news.</p><a href=\"{{unsubscribeUrl}}\">unsubscribe</a>"})["id"].(string)
	b.ResetTimer()
	start := time.Now()
	call("POST", "/broadcasts/"+bc+"/send", nil)
	var queuedAt time.Duration
	for {
		got := call("GET", "/broadcasts/"+bc, nil)
		if got["status"] == "sent" {
			queuedAt = time.Since(start)
			break
		}
		if time.Since(start) > 10*time.Minute {
			b.Fatalf("not every recipient queued after 10 minutes: %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := smtp.WaitForMessages(n, 20*time.Minute); err != nil {
		b.Fatalf("delivery: %v", err)
	}
	deliveredAt := time.Since(start)
	b.StopTimer()
	b.ReportMetric(queuedAt.Seconds(), "s-all-queued")
	b.ReportMetric(deliveredAt.Seconds(), "s-all-delivered")
	b.ReportMetric(float64(n)/deliveredAt.Seconds(), "delivered/s")
}
