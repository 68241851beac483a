package inbound

import (
	"context"
	"net/netip"
)

// Peer is how a message came: the connecting client's address, the name it
// gave in EHLO/HELO and whether the session ran under TLS. SPF (D75) needs
// the first two.
type Peer struct {
	IP   netip.Addr
	Helo string
	TLS  bool
}

type peerKey struct{}

// withPeer returns ctx carrying p, for the Handler's Deliver.
func withPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// PeerFrom returns the Peer of the session a Deliver call belongs to; the
// zero Peer outside one.
func PeerFrom(ctx context.Context) Peer {
	p, _ := ctx.Value(peerKey{}).(Peer)
	return p
}
