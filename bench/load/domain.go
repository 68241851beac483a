package main

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// sendingDomain is the domain every benchmark email is sent from.
const sendingDomain = "bench.example"

// verifyDomain creates the sending domain through the API, publishes its
// records in the benchmark's DNS server and verifies it, as a customer
// would (D31, D32).
func verifyDomain(ctx context.Context, api *apiClient, dns *dnsServer) error {
	var created struct {
		ID      string `json:"id"`
		Records []struct {
			Type  string `json:"type"`
			Host  string `json:"host"`
			Value string `json:"value"`
		} `json:"records"`
	}
	if err := api.postJSON(ctx, "/v1/product/domains", map[string]string{"name": sendingDomain}, http.StatusCreated, &created); err != nil {
		return fmt.Errorf("create domain: %w", err)
	}
	for _, r := range created.Records {
		if err := dns.Publish(r.Type, r.Host, r.Value); err != nil {
			return err
		}
	}
	var last struct {
		Status string         `json:"status"`
		Checks map[string]any `json:"checks"`
	}
	for range 20 {
		if err := api.postJSON(ctx, "/v1/product/domains/"+created.ID+"/verify", nil, http.StatusAccepted, &last); err != nil {
			return fmt.Errorf("verify domain: %w", err)
		}
		if last.Status == "verified" {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("domain %s still %q after 20 checks: %v", sendingDomain, last.Status, last.Checks)
}
