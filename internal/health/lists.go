package health

import (
	"fmt"
	"strings"

	"github.com/carteiro/carteiro"
)

// Kinds of blocklist: what a list is queried with.
const (
	// KindIP lists are queried with the reversed sending IP addresses.
	KindIP = "ip"
	// KindDomain lists are queried with the sender domain itself.
	KindDomain = "domain"
)

// NoLists is the value of CARTEIRO_DNSBL_LISTS that disables blocklist
// look-ups altogether.
const NoLists = "none"

// List is one DNS blocklist (DNSBL) zone and how to query it.
type List struct {
	// Zone is the list's DNS zone, such as "zen.spamhaus.org".
	Zone string
	// Kind is KindIP or KindDomain.
	Kind string
}

// String gives the list in the "kind:zone" form of CARTEIRO_DNSBL_LISTS.
func (l List) String() string { return l.Kind + ":" + l.Zone }

// DefaultLists are the blocklists consulted when CARTEIRO_DNSBL_LISTS is not
// set: the most widely used public lists of IP addresses and of domains.
func DefaultLists() []List {
	return []List{
		{Zone: "zen.spamhaus.org", Kind: KindIP},
		{Zone: "bl.spamcop.net", Kind: KindIP},
		{Zone: "b.barracudacentral.org", Kind: KindIP},
		{Zone: "dbl.spamhaus.org", Kind: KindDomain},
		{Zone: "multi.surbl.org", Kind: KindDomain},
	}
}

// ParseLists reads the CARTEIRO_DNSBL_LISTS setting: comma-separated
// "kind:zone" entries such as "ip:zen.spamhaus.org,domain:dbl.spamhaus.org".
// An empty setting means DefaultLists, and "none" means no look-ups at all,
// so an operator whose resolver the public lists refuse can turn them off.
// Kinds and zones are case-insensitive; an empty entry, an unknown kind, an
// invalid zone or the same list twice is an error, since a typo would
// otherwise silently drop a list.
func ParseLists(s string) ([]List, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return DefaultLists(), nil
	case strings.EqualFold(s, NoLists):
		return []List{}, nil
	}
	entries := strings.Split(s, ",")
	lists := make([]List, 0, len(entries))
	seen := make(map[List]bool, len(entries))
	for i, entry := range entries {
		list, err := parseList(entry)
		if err != nil {
			return nil, fmt.Errorf("health: DNSBL list %d %q: %w", i+1, strings.TrimSpace(entry), err)
		}
		if seen[list] {
			return nil, fmt.Errorf("health: DNSBL list %d %q: listed twice", i+1, list)
		}
		seen[list] = true
		lists = append(lists, list)
	}
	return lists, nil
}

// parseList reads one "kind:zone" entry.
func parseList(entry string) (List, error) {
	entry = strings.TrimSpace(entry)
	if entry == "" {
		return List{}, fmt.Errorf("empty entry")
	}
	kind, zone, found := strings.Cut(entry, ":")
	if !found {
		return List{}, fmt.Errorf("want kind:zone, such as %s:zen.spamhaus.org", KindIP)
	}
	kind = strings.ToLower(strings.TrimSpace(kind))
	if kind != KindIP && kind != KindDomain {
		return List{}, fmt.Errorf("kind %q is neither %q nor %q", kind, KindIP, KindDomain)
	}
	zone = carteiro.NormalizeDomainName(zone)
	if !carteiro.ValidDomainName(zone) {
		return List{}, fmt.Errorf("zone %q is not a valid domain name", zone)
	}
	return List{Zone: zone, Kind: kind}, nil
}
