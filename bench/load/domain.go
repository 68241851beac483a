package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/carteiro/carteiro/internal/testutil"
)

// sendingDomain is the domain every benchmark email is sent from.
const sendingDomain = "bench.example"

// dnsRecord is a record the API asks the customer to publish.
type dnsRecord struct {
	Type  string `json:"type"`
	Host  string `json:"host"`
	Value string `json:"value"`
}

// createdDomain is the sending domain as POST /domains answered it.
type createdDomain struct {
	ID      string      `json:"id"`
	Records []dnsRecord `json:"records"`
}

// publish puts the domain's records in the benchmark's DNS server, as a
// customer would at their DNS provider: TXT and CNAME are the only types
// Carteiro asks them to publish, and TXT values of one host form one set.
func (d createdDomain) publish(dns *testutil.DNSServer) error {
	txt := map[string][]string{}
	for _, r := range d.Records {
		switch r.Type {
		case "TXT":
			txt[r.Host] = append(txt[r.Host], r.Value)
		case "CNAME":
			dns.SetCNAME(r.Host, r.Value)
		default:
			return fmt.Errorf("dns: cannot publish a %s record", r.Type)
		}
	}
	for host, values := range txt {
		dns.SetTXT(host, values...)
	}
	return nil
}

// verifyDomain creates the sending domain through the API, publishes its
// records in the benchmark's DNS server and verifies it, as a customer
// would (D31, D32).
func verifyDomain(ctx context.Context, api *apiClient, dns *testutil.DNSServer) (createdDomain, error) {
	var created createdDomain
	if err := api.postJSON(ctx, "/v1/product/domains", map[string]string{"name": sendingDomain}, http.StatusCreated, &created); err != nil {
		return created, fmt.Errorf("create domain: %w", err)
	}
	if err := created.publish(dns); err != nil {
		return created, err
	}
	return created, checkDomain(ctx, api, created.ID)
}

// checkDomain asks the API to verify the domain until it is verified.
func checkDomain(ctx context.Context, api *apiClient, id string) error {
	var last struct {
		Status string         `json:"status"`
		Checks map[string]any `json:"checks"`
	}
	for range 20 {
		if err := api.postJSON(ctx, "/v1/product/domains/"+id+"/verify", nil, http.StatusAccepted, &last); err != nil {
			return fmt.Errorf("verify domain: %w", err)
		}
		if last.Status == "verified" {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("domain %s still %q after 20 checks: %v", sendingDomain, last.Status, last.Checks)
}
