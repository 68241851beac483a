package mta

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// routeTTL bounds how long a domain's exchangers are reused without asking
// DNS again. The resolver does not report record TTLs, so this is the bound
// D80's "cached within DNS TTLs" falls back to; MX records commonly live
// 5 minutes to an hour, so reusing them 5 minutes seldom outlives a change.
const routeTTL = 5 * time.Minute

// destinationKey names the destination of a route (D80): the registered
// domain of its most preferred exchanger, so every domain whose MX hosts
// are *.google.com shares the destination "google.com". An exchanger given
// as an address, or whose name is a public suffix, is its own key.
func destinationKey(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if net.ParseIP(host) != nil {
		return host
	}
	key, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return key
}

// cachedRoute is a domain's exchangers as DNS gave them, sorted by
// preference, and the destination they make.
type cachedRoute struct {
	mxs      []*net.MX
	implicit bool
	key      string
	expires  time.Time
}

// route returns the exchangers in the order to try, shuffling those of
// equal preference anew for each delivery (RFC 5321 section 5.1).
func (c cachedRoute) route() route {
	if c.implicit {
		return route{hosts: []string{c.mxs[0].Host}, implicit: true}
	}
	mxs := slices.Clone(c.mxs)
	shuffleEqualPreference(mxs)
	hosts := make([]string, len(mxs))
	for i, mx := range mxs {
		hosts[i] = mx.Host
	}
	return route{hosts: hosts}
}

// routeCache remembers domains' exchangers for routeTTL. Failures are not
// kept: a temporary DNS failure is asked again at the next delivery.
type routeCache struct {
	dns resolver
	now func() time.Time

	mu     sync.Mutex
	routes map[string]cachedRoute // by recipient domain
}

func newRouteCache(dns resolver, now func() time.Time) *routeCache {
	return &routeCache{dns: dns, now: now, routes: make(map[string]cachedRoute)}
}

// lookup returns domain's route and destination key, from the cache while
// fresh, else from DNS.
func (c *routeCache) lookup(ctx context.Context, domain string) (route, string, *Result) {
	now := c.now()
	c.mu.Lock()
	cached, ok := c.routes[domain]
	c.mu.Unlock()
	if ok && now.Before(cached.expires) {
		return cached.route(), cached.key, nil
	}
	mxs, implicit, fail := lookupExchangers(ctx, c.dns, domain)
	if fail != nil {
		return route{}, "", fail
	}
	cached = cachedRoute{mxs: mxs, implicit: implicit, key: preferredKey(mxs), expires: now.Add(routeTTL)}
	c.mu.Lock()
	c.routes[domain] = cached
	// Expired entries go when the map is written, so it holds no more than
	// the domains delivered to within routeTTL.
	for d, r := range c.routes {
		if !now.Before(r.expires) {
			delete(c.routes, d)
		}
	}
	c.mu.Unlock()
	return cached.route(), cached.key, nil
}

// preferredKey is the destination key of the most preferred exchanger;
// among several of that preference the first by name, so the key does not
// change with the order DNS lists them in.
func preferredKey(mxs []*net.MX) string {
	best := mxs[0]
	for _, mx := range mxs[1:] {
		if mx.Pref == best.Pref && mx.Host < best.Host {
			best = mx
		}
	}
	return destinationKey(best.Host)
}
