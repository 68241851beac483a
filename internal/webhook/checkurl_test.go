package webhook_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testutil"
	"github.com/carteiro/carteiro/internal/webhook"
)

// The resolver the configuration builds satisfies the interface.
var _ webhook.Resolver = (*dnscheck.Resolver)(nil)

// mapResolver answers from a table and records the names asked, so tests
// can see what CheckURL resolved. Unknown names do not exist.
type mapResolver struct {
	mu      sync.Mutex
	answers map[string][]string
	asked   []string
}

func newMapResolver(answers map[string][]string) *mapResolver {
	return &mapResolver{answers: answers}
}

func (m *mapResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, host)
	if a, ok := m.answers[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (m *mapResolver) askedNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.asked...)
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	resolver := newMapResolver(map[string][]string{
		"public.example.com":         {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"xn--bcher-kva.example":      {"8.8.8.8"},
		"private.example.com":        {"10.1.2.3"},
		"mixed.example.com":          {"8.8.8.8", "127.0.0.1"},
		"ula.example.com":            {"fd00::1"},
		"metadata.example.com":       {"169.254.169.254"},
		"mapped.example.com":         {"::ffff:127.0.0.1"},
		"garbage-answer.example.com": {"not-an-ip"},
		"empty.example.com":          {},
	})
	cases := []struct {
		url    string
		reason string // "" means accepted
	}{
		// Accepted: https, public addresses.
		{"https://public.example.com/hooks?x=1", ""},
		{"https://PUBLIC.Example.COM./hooks", ""},
		{"https://public.example.com:8443/p#fragment", ""},
		{"https://bücher.example/", ""},
		{"https://8.8.8.8/", ""},
		{"https://134744072/", ""}, // 8.8.8.8 as one number: odd, but public
		{"https://[2606:4700:4700::1111]/", ""},

		// Malformed or not https (D51, 6.1).
		{"", webhook.ReasonInvalidURL},
		{"http://public.example.com/", webhook.ReasonInvalidURL},
		{"HTTP://public.example.com/", webhook.ReasonInvalidURL},
		{"ftp://public.example.com/", webhook.ReasonInvalidURL},
		{"public.example.com/hooks", webhook.ReasonInvalidURL},
		{"//public.example.com/hooks", webhook.ReasonInvalidURL},
		{"https://", webhook.ReasonInvalidURL},
		{"https:///path", webhook.ReasonInvalidURL},
		{"https:public.example.com", webhook.ReasonInvalidURL},
		{"https://exa mple.com/", webhook.ReasonInvalidURL},
		{"https://public.example.com:0/", webhook.ReasonInvalidURL},
		{"https://public.example.com:70000/", webhook.ReasonInvalidURL},
		{"https://public.example.com:https/", webhook.ReasonInvalidURL},
		{"https://-bad.example.com/", webhook.ReasonInvalidURL},
		{"https://bad..example.com/", webhook.ReasonInvalidURL},
		{"https://1.2.3.256/", webhook.ReasonInvalidURL},
		{"https://1.2.3.4.5/", webhook.ReasonInvalidURL},
		{"https://0x100000000/", webhook.ReasonInvalidURL},
		{"https://08.0.0.1/", webhook.ReasonInvalidURL},
		{"https://[127.0.0.1]/", webhook.ReasonInvalidURL},
		{"https://public.example.com/" + strings.Repeat("a", 2100), webhook.ReasonInvalidURL},
		{"https://unknown.example.com/", webhook.ReasonHostNotResolvable},
		{"https://empty.example.com/", webhook.ReasonHostNotResolvable},

		// Non-public in every spelling (D51).
		{"https://127.0.0.1/", webhook.ReasonNotAllowed},
		{"https://127.1/", webhook.ReasonNotAllowed},
		{"https://2130706433/", webhook.ReasonNotAllowed},
		{"https://0x7f000001/", webhook.ReasonNotAllowed},
		{"https://0177.0.0.1/", webhook.ReasonNotAllowed},
		{"https://127.0.0.1.:8443/", webhook.ReasonNotAllowed},
		{"https://[::1]/", webhook.ReasonNotAllowed},
		{"https://[::ffff:127.0.0.1]/", webhook.ReasonNotAllowed},
		{"https://[::ffff:7f00:1]/", webhook.ReasonNotAllowed},
		{"https://[64:ff9b::7f00:1]/", webhook.ReasonNotAllowed},
		{"https://[fe80::1%25eth0]/", webhook.ReasonNotAllowed},
		{"https://localhost/", webhook.ReasonNotAllowed},
		{"https://LOCALHOST:8443/", webhook.ReasonNotAllowed},
		{"https://api.localhost/", webhook.ReasonNotAllowed},
		{"https://10.0.0.1/", webhook.ReasonNotAllowed},
		{"https://192.168.1.1:8443/", webhook.ReasonNotAllowed},
		{"https://169.254.169.254/latest/meta-data/", webhook.ReasonNotAllowed},
		{"https://100.64.0.1/", webhook.ReasonNotAllowed},
		{"https://[fc00::1]/", webhook.ReasonNotAllowed},
		{"https://0.0.0.0/", webhook.ReasonNotAllowed},
		{"https://0/", webhook.ReasonNotAllowed},
		{"https://[::]/", webhook.ReasonNotAllowed},
		{"https://224.0.0.1/", webhook.ReasonNotAllowed},
		{"https://private.example.com/", webhook.ReasonNotAllowed},
		{"https://mixed.example.com/", webhook.ReasonNotAllowed},
		{"https://ula.example.com/", webhook.ReasonNotAllowed},
		{"https://metadata.example.com/", webhook.ReasonNotAllowed},
		{"https://mapped.example.com/", webhook.ReasonNotAllowed},
		{"https://garbage-answer.example.com/", webhook.ReasonNotAllowed},
	}
	ctx := context.Background()
	for _, c := range cases {
		reason, ok := webhook.CheckURL(ctx, c.url, resolver, false)
		if ok != (c.reason == "") || reason != c.reason {
			t.Errorf("CheckURL(%q) = %q, %v; want %q", c.url, reason, ok, c.reason)
		}
	}

	// Names are resolved in canonical form: lower case, punycode, no
	// trailing dot; IP literals and localhost are never sent to DNS.
	for _, name := range resolver.askedNames() {
		if name != strings.ToLower(name) || strings.HasSuffix(name, ".") || strings.Contains(name, "ü") {
			t.Errorf("resolver asked for %q, not a canonical name", name)
		}
		if strings.Contains(name, "localhost") || strings.Trim(name, "0123456789.x") == "" {
			t.Errorf("resolver asked for %q, which must be judged without DNS", name)
		}
	}
}

func TestCheckURLAllowPrivate(t *testing.T) {
	t.Parallel()
	resolver := newMapResolver(map[string][]string{})
	ctx := context.Background()
	for _, u := range []string{
		"https://127.0.0.1/", "https://localhost:8443/hooks", "https://[::1]/",
		"https://10.0.0.1/", "https://webhook-receiver:8443/", "https://unknown.example.com/",
	} {
		if reason, ok := webhook.CheckURL(ctx, u, resolver, true); !ok {
			t.Errorf("CheckURL(%q, allowPrivate) = %q, want accepted", u, reason)
		}
	}
	// Still https only, still well formed.
	for _, u := range []string{"http://127.0.0.1/", "https://1.2.3.256/", "not a url"} {
		if reason, ok := webhook.CheckURL(ctx, u, resolver, true); ok || reason != webhook.ReasonInvalidURL {
			t.Errorf("CheckURL(%q, allowPrivate) = %q, %v; want invalid_url", u, reason, ok)
		}
	}
	if asked := resolver.askedNames(); len(asked) != 0 {
		t.Errorf("allowPrivate resolved %v; nothing needs resolving", asked)
	}
}

// TestCheckURLWithDNSServer runs the rule through the resolver production
// uses, against an in-process DNS server.
func TestCheckURLWithDNSServer(t *testing.T) {
	t.Parallel()
	dnsServer := testutil.NewDNSServer(t)
	dnsServer.SetA("hooks.customer.test", "93.184.215.14")
	dnsServer.SetA("internal.customer.test", "93.184.215.14", "192.168.10.5")
	dnsServer.SetA("v6.customer.test", "fd00::5")
	resolver, err := dnscheck.NewResolver(dnsServer.Addr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := map[string]string{
		"https://hooks.customer.test/in":    "",
		"https://internal.customer.test/in": webhook.ReasonNotAllowed,
		"https://v6.customer.test/in":       webhook.ReasonNotAllowed,
		"https://missing.customer.test/in":  webhook.ReasonHostNotResolvable,
	}
	for u, want := range cases {
		reason, ok := webhook.CheckURL(ctx, u, resolver, false)
		if ok != (want == "") || reason != want {
			t.Errorf("CheckURL(%q) = %q, %v; want %q", u, reason, ok, want)
		}
	}
}
