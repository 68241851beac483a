package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is the Prometheus registry of one server (no global registry, so
// tests can run several servers in one process).
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewMetrics registers the request metrics and, when depth is not nil, a
// queue depth gauge read at scrape time.
func NewMetrics(depth func(ctx context.Context) (map[string]int, error)) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "carteiro_http_requests_total", Help: "HTTP requests by method, route and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "carteiro_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"method", "route"}),
	}
	m.registry.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if depth != nil {
		m.registry.MustRegister(&queueDepthCollector{depth: depth})
	}
	return m
}

// Register adds other components' collectors (the SMTP submission
// listener's) to /metrics.
func (m *Metrics) Register(cs ...prometheus.Collector) { m.registry.MustRegister(cs...) }

func (m *Metrics) observe(method, route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(d.Seconds())
}

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// queueDepthCollector reports jobs waiting by state when scraped.
type queueDepthCollector struct {
	depth func(ctx context.Context) (map[string]int, error)
}

var queueDepthDesc = prometheus.NewDesc("carteiro_queue_jobs", "Background jobs not yet finished, by state.", []string{"state"}, nil)

func (c *queueDepthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepthDesc }

func (c *queueDepthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.depth(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
		return
	}
	for state, n := range counts {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(n), state)
	}
}

// CountInboundReports exports the inbound listener's messages by outcome
// (bound, unbound, unmatched, not_a_report), read from counts at scrape
// time: "unbound" counts the reports D65 refuses to apply, forgeries among
// them.
func (m *Metrics) CountInboundReports(counts func() map[string]uint64) {
	m.registry.MustRegister(&inboundReportsCollector{counts: counts})
}

var inboundReportsDesc = prometheus.NewDesc("carteiro_inbound_reports_total",
	"Messages received by the inbound listener, by outcome (D65: unbound reports change nothing).", []string{"outcome"}, nil)

// inboundReportsCollector reports the App's counters when scraped.
type inboundReportsCollector struct {
	counts func() map[string]uint64
}

func (c *inboundReportsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- inboundReportsDesc }

func (c *inboundReportsCollector) Collect(ch chan<- prometheus.Metric) {
	for outcome, n := range c.counts() {
		ch <- prometheus.MustNewConstMetric(inboundReportsDesc, prometheus.CounterValue, float64(n), outcome)
	}
}
