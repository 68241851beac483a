package server

import (
	"fmt"

	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/mta"
)

// newTransport picks relay or direct MX delivery (D3, D56).
func newTransport(cfg config.Config, resolver *dnscheck.Resolver) (mta.Transport, error) {
	timeout := cfg.SMTPTimeout
	if cfg.Delivery == "relay" {
		r, err := mta.NewRelay(cfg.RelayURL, mta.RelayOptions{
			PoolSize:       cfg.RelayPoolSize,
			CommandTimeout: timeout, DataTimeout: 2 * timeout, DialTimeout: min(timeout, 30e9),
			// D25: without a success DSN a relay's 250 is not delivery.
			RequestDSN: !cfg.RelayAcceptIsDelivery,
		})
		if err != nil {
			return nil, fmt.Errorf("CARTEIRO_RELAY_URL: %w", err)
		}
		return r, nil
	}
	return mta.NewDirect(resolver, mta.DirectOptions{
		Port:           cfg.DirectPort,
		CommandTimeout: timeout, DataTimeout: 2 * timeout, DialTimeout: min(timeout, 30e9),
	}), nil
}
