package server

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/mta"
)

// newTransport picks relay or direct MX delivery (D3, D56).
func newTransport(cfg config.Config, resolver *dnscheck.Resolver, logger *slog.Logger, clock carteiro.Clock) (mta.Transport, error) {
	timeout := cfg.SMTPTimeout
	if cfg.Delivery == "relay" {
		r, err := mta.NewRelay(cfg.RelayURL, mta.RelayOptions{
			HeloName:       HeloName(cfg),
			PoolSize:       cfg.RelayPoolSize,
			CommandTimeout: timeout, DataTimeout: 2 * timeout, DialTimeout: min(timeout, 30e9),
			// D25: without a success DSN a relay's 250 is not delivery.
			RequestDSN: !cfg.RelayAcceptIsDelivery,
			Logger:     logger,
		})
		if err != nil {
			return nil, fmt.Errorf("CARTEIRO_RELAY_URL: %w", err)
		}
		return r, nil
	}
	return mta.NewDirect(resolver, mta.DirectOptions{
		Port:           cfg.DirectPort,
		HeloName:       HeloName(cfg),
		CommandTimeout: timeout, DataTimeout: 2 * timeout, DialTimeout: min(timeout, 30e9),
		// D80: per-destination shaping.
		Connections: cfg.DestinationConnections,
		Shaping:     cfg.Shaping,
		Logger:      logger,
		Now:         clock.Now,
	}), nil
}

// HeloName is the EHLO name of outgoing SMTP (D68): CARTEIRO_HELO_NAME, else
// the machine's name when fully qualified, else the bounce host.
func HeloName(cfg config.Config) string {
	if cfg.HeloName != "" {
		return cfg.HeloName
	}
	host, _ := os.Hostname()
	return mta.DefaultHeloName(host, cfg.BounceHost)
}
