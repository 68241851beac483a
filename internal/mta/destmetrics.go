package mta

import "github.com/prometheus/client_golang/prometheus"

// Per-destination metrics (D80), read from the pools when scraped.
var (
	destConnectionsDesc = prometheus.NewDesc("carteiro_destination_connections",
		"Connections open to a destination (in use or idle), direct delivery.", []string{"destination"}, nil)
	destLimitDesc = prometheus.NewDesc("carteiro_destination_connection_limit",
		"A destination's current connection limit: halved by slow-down replies, grown back by one a minute.", []string{"destination"}, nil)
	destQueuedDesc = prometheus.NewDesc("carteiro_destination_queued",
		"Deliveries waiting for a connection to a destination.", []string{"destination"}, nil)
	destHeldDesc = prometheus.NewDesc("carteiro_destination_held",
		"1 while a destination is held after repeated connection failures.", []string{"destination"}, nil)
	destDeliveredDesc = prometheus.NewDesc("carteiro_destination_delivered_total",
		"Recipients a destination accepted.", []string{"destination"}, nil)
	destDeferredDesc = prometheus.NewDesc("carteiro_destination_deferred_total",
		"Recipients deferred at a destination (temporary failures, holds included).", []string{"destination"}, nil)
)

// destCollector exports Direct.Stats.
type destCollector struct{ d *Direct }

// Collector exports the per-destination metrics for /metrics.
func (d *Direct) Collector() prometheus.Collector { return destCollector{d} }

func (c destCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, desc := range []*prometheus.Desc{destConnectionsDesc, destLimitDesc, destQueuedDesc, destHeldDesc, destDeliveredDesc, destDeferredDesc} {
		ch <- desc
	}
}

func (c destCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.d.Stats() {
		held := 0.0
		if s.Held {
			held = 1
		}
		ch <- prometheus.MustNewConstMetric(destConnectionsDesc, prometheus.GaugeValue, float64(s.Connections), s.Destination)
		ch <- prometheus.MustNewConstMetric(destLimitDesc, prometheus.GaugeValue, float64(s.Limit), s.Destination)
		ch <- prometheus.MustNewConstMetric(destQueuedDesc, prometheus.GaugeValue, float64(s.Queued), s.Destination)
		ch <- prometheus.MustNewConstMetric(destHeldDesc, prometheus.GaugeValue, held, s.Destination)
		ch <- prometheus.MustNewConstMetric(destDeliveredDesc, prometheus.CounterValue, float64(s.Delivered), s.Destination)
		ch <- prometheus.MustNewConstMetric(destDeferredDesc, prometheus.CounterValue, float64(s.Deferred), s.Destination)
	}
}
