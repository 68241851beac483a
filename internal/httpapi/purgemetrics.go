package httpapi

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/carteiro/carteiro/internal/app"
)

// ReportPurges adds the retention purge's totals (D77) to the metrics, read
// at scrape time from totals: rows removed by kind, and the bytes of email
// content deleted.
func (m *Metrics) ReportPurges(totals func() app.Purged) {
	m.registry.MustRegister(&purgeCollector{totals: totals})
}

type purgeCollector struct{ totals func() app.Purged }

var (
	purgedRowsDesc = prometheus.NewDesc("carteiro_retention_purged_total",
		"Rows removed by the retention purge since the process started, by kind: email_content (emails emptied), email (records deleted), webhook_delivery, idempotency_key, inbound_email (received messages deleted with their raw bytes, D75).",
		[]string{"kind"}, nil)
	purgedBytesDesc = prometheus.NewDesc("carteiro_retention_content_bytes_total",
		"Bytes of email content (html, text, attachments, headers) the retention purge deleted since the process started, as stored before any compression.", nil, nil)
)

func (c *purgeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- purgedRowsDesc
	ch <- purgedBytesDesc
}

func (c *purgeCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.totals()
	for kind, n := range map[string]int64{"email_content": p.ContentEmails, "email": p.Emails,
		"webhook_delivery": p.WebhookDeliveries, "idempotency_key": p.IdempotencyKeys, "inbound_email": p.InboundEmails} {
		ch <- prometheus.MustNewConstMetric(purgedRowsDesc, prometheus.CounterValue, float64(n), kind)
	}
	ch <- prometheus.MustNewConstMetric(purgedBytesDesc, prometheus.CounterValue, float64(p.ContentBytes))
}
