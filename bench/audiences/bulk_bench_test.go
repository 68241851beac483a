// Package audiences measures the bulk contact import over HTTP against the
// real server (issue: audiences, contacts and broadcasts; target p95 at most
// 150 ms for 10,000 contacts).
//
// Run: go test -run '^$' -bench BulkImport -benchtime 20x ./bench/audiences/
package audiences

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

func BenchmarkBulkImport10k(b *testing.B) {
	for _, backend := range testserver.Backends() {
		b.Run(string(backend), func(b *testing.B) {
			ts := testserver.StartServer(b, backend, nil)
			contacts := make([]map[string]any, 10000)
			for i := range contacts {
				contacts[i] = map[string]any{"email": fmt.Sprintf("person%05d@example.com", i), "firstName": fmt.Sprintf("P%d", i),
					"metadata": map[string]any{"plan": "pro"}}
			}
			body, _ := json.Marshal(map[string]any{"contacts": contacts})
			client := &http.Client{Timeout: time.Minute}
			post := func(path string, payload []byte) *http.Response {
				req, _ := http.NewRequest("POST", ts.URL+path, bytes.NewReader(payload))
				req.Header.Set("Authorization", "Bearer "+ts.LiveKey)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				return resp
			}
			var took []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				resp := post("/v1/product/audiences", []byte(fmt.Sprintf(`{"name":"bench %d"}`, i)))
				var aud struct{ ID string }
				_ = json.NewDecoder(resp.Body).Decode(&aud)
				resp.Body.Close()
				b.StartTimer()
				start := time.Now()
				resp = post("/v1/product/audiences/"+aud.ID+"/contacts/bulk", body)
				var res struct{ Inserted int }
				_ = json.NewDecoder(resp.Body).Decode(&res)
				resp.Body.Close()
				took = append(took, time.Since(start))
				if resp.StatusCode != 200 || res.Inserted != 10000 {
					b.Fatalf("import: %d, inserted %d", resp.StatusCode, res.Inserted)
				}
			}
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			pct := func(p float64) float64 {
				return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.5), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
		})
	}
}
