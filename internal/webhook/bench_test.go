package webhook_test

import (
	"context"
	"testing"

	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/internal/webhook"
)

// BenchmarkSendParallel measures signed deliveries to one receiver over the
// shared connection pool (the 2,000 deliveries/s target).
func BenchmarkSendParallel(b *testing.B) {
	rcv := testutil.NewTLSReceiver(b, nil)
	client, err := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, CAFile: rcv.CAFile()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(client.Close)
	body := []byte(`{"id":"0190f3a2-0000-7000-8000-000000000001","type":"email.delivered","createdAt":"2026-01-02T03:04:05Z","data":{"emailId":"e1","to":["a@example.com"]}}`)
	req := webhook.Request{URL: rcv.URL() + "/in", Secret: testSecret, EventID: "evt", Body: body}
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if out := client.Send(context.Background(), req); !out.Success {
				b.Errorf("send: %+v", out)
				return
			}
		}
	})
}
