package submission

import "github.com/prometheus/client_golang/prometheus"

// Metrics count the listener's traffic for /metrics.
type Metrics struct {
	connections  prometheus.Counter
	authFailures prometheus.Counter
	messages     *prometheus.CounterVec
}

// NewMetrics makes unregistered counters; Collectors hands them to a
// registry.
func NewMetrics() *Metrics {
	return &Metrics{
		connections: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "carteiro_submission_connections_total", Help: "SMTP submission sessions started (EHLO/HELO).",
		}),
		authFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "carteiro_submission_auth_failures_total", Help: "SMTP submission AUTH attempts refused.",
		}),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "carteiro_submission_messages_total",
			Help: "SMTP submission transactions by result: accepted, or the refusal's reason.",
		}, []string{"result"}),
	}
}

// Collectors are the counters to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.connections, m.authFailures, m.messages}
}

func (m *Metrics) result(r string) { m.messages.WithLabelValues(r).Inc() }
