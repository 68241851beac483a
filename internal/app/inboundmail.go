package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/inbound"
	"github.com/carteiro/carteiro/internal/mailauth"
	"github.com/carteiro/carteiro/internal/mimeparse"
	"github.com/carteiro/carteiro/internal/store"
)

// EventReceived is the webhook event type of a received message (D75).
const EventReceived = "email.received"

// receivesFor reports whether domain is a verified domain whose inbound is
// on (D75). A store that cannot answer counts as yes: the message is then
// refused with a 451 at DATA, when storing it fails too, and the sender
// retries; a 550 would lose it for good.
//
// The domain found is kept for the DATA of the same SMTP transaction
// (inbound.Memo), which then does not look it up again: a domain whose
// inbound is turned off in the seconds between RCPT and DATA still gets
// that one message, as it would have, had DATA come sooner.
func (a *App) receivesFor(ctx context.Context, domain string) bool {
	d, err := a.store.InboundDomain(ctx, domain)
	if errors.Is(err, store.ErrNotFound) {
		return false
	}
	if err != nil {
		a.logger.WarnContext(ctx, "inbound: domain lookup failed; accepting until DATA", "domain", domain, "err", err)
		return true
	}
	inbound.MemoFrom(ctx).Remember(inboundDomainKey(domain), d)
	return true
}

// inboundDomainKey is the inbound.Memo key of a receiving domain's lookup
// at RCPT.
type inboundDomainKey string

// inboundDomain is the receiving domain of name: the one RCPT found in
// this SMTP transaction, else the store's.
func (a *App) inboundDomain(ctx context.Context, name string) (*carteiro.Domain, error) {
	if d, ok := inbound.MemoFrom(ctx).Recall(inboundDomainKey(name)); ok {
		return d.(*carteiro.Domain), nil
	}
	return a.store.InboundDomain(ctx, name)
}

// receivedGroup is the part of a message that goes to one organization:
// its domain and the envelope recipients there.
type receivedGroup struct {
	domain *carteiro.Domain
	rcpts  []string
}

// ReceiveInbound stores a message received for inbound domains (D75): once
// per organization its recipients belong to, with the SPF, DKIM and DMARC
// results and the parsed parts, and, in the same transaction, one
// email.received delivery (and job) per subscribed webhook; the jobs of
// all the messages sharing a commit go in with one statement. It returns
// only once all of that is committed, so the listener's 250 means stored;
// any error makes it answer 451 and nothing is kept.
func (a *App) ReceiveInbound(ctx context.Context, from string, rcpts []string, raw []byte) error {
	groups, err := a.receivedGroups(ctx, rcpts)
	if err != nil {
		return err
	}
	if len(groups) == 0 {
		// Inbound was turned off after RCPT (or no RCPT of this
		// transaction found the domain): nobody to give the message to,
		// and the sender has nothing to fix.
		a.logger.InfoContext(ctx, "inbound: no receiving domain left; dropped", "rcpts", rcpts)
		return nil
	}
	msg := mimeparse.Parse(raw)
	fromAddress := ""
	if len(msg.From) > 0 {
		fromAddress = strings.ToLower(msg.From[0].Address)
	}
	fromDomain := ""
	if len(msg.From) == 1 {
		fromDomain = carteiro.DomainOf(msg.From[0].Address)
	}
	peer := inbound.PeerFrom(ctx)
	var clientIP net.IP
	if peer.IP.IsValid() {
		clientIP = net.IP(peer.IP.AsSlice())
	}
	auth := mailauth.Evaluate(ctx, a.dns.Resolver, a.inboundHost(), mailauth.Input{
		ClientIP: clientIP, Helo: peer.Helo, MailFrom: from, FromDomain: fromDomain, Raw: raw})
	// Threading reads outside the shared commit, which it would slow for
	// every concurrent session (see repliedEmail).
	replied := make([]string, len(groups))
	for i, g := range groups {
		if replied[i], err = a.repliedEmail(ctx, g.domain.OrgID, msg); err != nil {
			return storeErr(err)
		}
	}
	now := a.clock.Now()
	return storeErr(a.store.RecordReceived(ctx, webhookJobs{queue: a.queue}, func(tx *store.Tx) ([]string, error) {
		var jobs []string
		for i, g := range groups {
			e := &carteiro.InboundEmail{
				ID: uuid.Must(uuid.NewV7()).String(), OrgID: g.domain.OrgID, DomainID: g.domain.ID,
				MailFrom: from, RcptTo: g.rcpts, FromAddress: fromAddress, SearchTo: searchTo(msg, g.rcpts),
				Subject: msg.Subject, MessageID: msg.MessageID,
				SPF: auth.SPF, DKIM: auth.DKIM, DMARC: auth.DMARC, AuthResults: auth.Header,
				InReplyToEmailID: replied[i], Message: msg, Size: int64(len(raw)), ReceivedAt: now,
			}
			if err := tx.InsertInboundEmail(ctx, e, raw); err != nil {
				return nil, err
			}
			ids, err := a.raiseReceived(ctx, tx, e)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, ids...)
		}
		return jobs, nil
	}))
}

// receivedGroups groups recipients by the inbound domain that takes them.
func (a *App) receivedGroups(ctx context.Context, rcpts []string) ([]*receivedGroup, error) {
	var groups []*receivedGroup
	for _, r := range rcpts {
		name := carteiro.DomainOf(r)
		i := slices.IndexFunc(groups, func(g *receivedGroup) bool { return g.domain.Name == name })
		if i >= 0 {
			groups[i].rcpts = append(groups[i].rcpts, r)
			continue
		}
		d, err := a.inboundDomain(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("inbound domain %s: %w", name, err)
		}
		groups = append(groups, &receivedGroup{domain: d, rcpts: []string{r}})
	}
	// One organization may own several of the domains: one message each
	// organization, with all its recipients.
	var merged []*receivedGroup
	for _, g := range groups {
		i := slices.IndexFunc(merged, func(m *receivedGroup) bool { return m.domain.OrgID == g.domain.OrgID })
		if i >= 0 {
			merged[i].rcpts = append(merged[i].rcpts, g.rcpts...)
			continue
		}
		merged = append(merged, g)
	}
	return merged, nil
}

// searchTo is what the toAddress filter searches: To, Cc and the envelope
// recipients, lowercased.
func searchTo(msg *mimeparse.Message, rcpts []string) string {
	var parts []string
	for _, list := range [][]mimeparse.Address{msg.To, msg.Cc} {
		for _, addr := range list {
			parts = append(parts, addr.Address)
		}
	}
	parts = append(parts, rcpts...)
	return strings.ToLower(strings.Join(parts, "\n"))
}

// maxThreadRefs bounds the References looked up for threading.
const maxThreadRefs = 20

// repliedEmail is the organization's email that In-Reply-To or References
// names (D75); the nearest reference wins: In-Reply-To, then References
// from the last. A reference links when it is the email's Message-ID:
// one the service wrote, <email id@sender domain> (deliver.go), found by
// the email's id, or one that a message submitted over SMTP brought
// itself (D74), found by Message-ID, read only when the first kind does
// not answer. A reply racing its email's first delivery attempt may miss
// the link; nothing else is lost.
func (a *App) repliedEmail(ctx context.Context, orgID string, msg *mimeparse.Message) (string, error) {
	refs := slices.Clone(msg.InReplyTo)
	for i := len(msg.References) - 1; i >= 0 && len(refs) < maxThreadRefs; i-- {
		refs = append(refs, msg.References[i])
	}
	var submitted map[string]string
	for _, ref := range refs {
		id, err := a.generatedMessageID(ctx, orgID, ref)
		if id != "" || err != nil {
			return id, err
		}
		if submitted == nil {
			if submitted, err = a.store.EmailsByMessageID(ctx, orgID, refs); err != nil {
				return "", err
			}
		}
		if id := submitted[ref]; id != "" {
			return id, nil
		}
	}
	return "", nil
}

// generatedMessageID is the id of the organization's email whose
// service-written Message-ID ref is, "" when it is none.
func (a *App) generatedMessageID(ctx context.Context, orgID, ref string) (string, error) {
	left, _, ok := strings.Cut(ref, "@")
	if !ok {
		return "", nil
	}
	if _, err := uuid.Parse(left); err != nil {
		return "", nil
	}
	e, err := a.store.EmailByID(ctx, left)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if e.OrgID == orgID && strings.EqualFold(e.MessageID, ref) {
		return e.ID, nil
	}
	return "", nil
}
