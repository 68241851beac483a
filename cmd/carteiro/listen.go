package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/carteiro/carteiro/sdk/go/carteiro"
	"github.com/carteiro/carteiro/sdk/go/carteiro/webhook"
)

// Settings of `carteiro webhook listen`.
const (
	// envListenSecret is the signing secret, so that the local app can keep
	// one secret across runs.
	envListenSecret = "CARTEIRO_LISTEN_SECRET"
	// forwardTimeout is what the server gives a receiver (section 6, D49).
	forwardTimeout = 5 * time.Second
)

// webhookEventTypes are the timeline types a webhook delivers (section 6),
// as "email." + type.
var webhookEventTypes = map[string]bool{
	"sent": true, "delivered": true, "bounced": true, "complained": true, "opened": true,
	"clicked": true, "failed": true, "suppressed": true, "delivery_delayed": true,
}

// webhookCommand is `carteiro webhook ...`.
func webhookCommand(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	if len(args) == 0 || args[0] != "listen" {
		return usageError{"webhook: want listen"}
	}
	return listenCommand(ctx, args[1:], stdout, stderr, lookupEnv)
}

// listenCommand is `carteiro webhook listen --forward-to URL`: a relay for
// development, as `stripe listen` is. The events of the key's organization
// are POSTed to a local app as the server's webhooks would be: the same
// body (D47) and both signatures (D48, D76), made with a secret the relay
// prints, so the app runs its production verification code unchanged.
//
// The relay does not register a webhook on the server: the server delivers
// only to public HTTPS addresses (D51), which a laptop is not. It reads the
// events through the API instead (see emailWatcher), which works wherever
// the API is reachable. Event ids are the relay's own (the timeline has
// none), stable across runs for the same event, so deduplication works.
func listenCommand(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("webhook listen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	forwardTo := fs.String("forward-to", "", "URL of the local app's webhook endpoint, such as http://localhost:3000/hooks")
	secret := fs.String("secret", "", "signing secret (default $"+envListenSecret+", else a new whsec_ secret, printed)")
	events := fs.String("events", "", "comma-separated event types to forward, such as email.delivered,email.bounced (default all)")
	f := addWatchFlags(fs, "also forward the events of emails created up to this long before the newest one")
	if err := f.parse(fs, args); err != nil {
		return err
	}
	target, err := url.Parse(*forwardTo)
	if *forwardTo == "" || err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return usageError{"webhook listen: --forward-to needs an http:// or https:// URL"}
	}
	wanted, err := parseEventTypes(*events)
	if err != nil {
		return err
	}
	if *secret == "" {
		*secret, _ = lookupEnv(envListenSecret)
	}
	if *secret == "" {
		*secret = newListenSecret()
	}
	ctx, stop, w, err := f.start(ctx, "webhook listen", lookupEnv)
	if err != nil {
		return err
	}
	defer stop()
	relay := &listenRelay{target: *forwardTo, secret: *secret, http: &http.Client{Timeout: forwardTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	out := json.NewEncoder(stdout)
	fmt.Fprintf(stderr, "Ready. Forwarding the organization's events to %s, signed with %s\n", *forwardTo, *secret)
	fmt.Fprintf(stderr, "(polling the API every %s; Ctrl-C to stop)\n", *f.interval)
	return w.run(ctx, *f.interval, func(u emailUpdate) error {
		for _, ev := range u.Events {
			if !webhookEventTypes[ev.Type] || (len(wanted) > 0 && !wanted["email."+ev.Type]) {
				continue
			}
			res := relay.forward(ctx, u.Email, ev)
			if *f.asJSON {
				if err := out.Encode(res); err != nil {
					return err
				}
				continue
			}
			outcome := fmt.Sprintf("[%d]", res.Status)
			if res.Error != "" {
				outcome = "[error: " + res.Error + "]"
			}
			fmt.Fprintf(stdout, "%s  --> %-22s %s  email %s  %s\n", time.Now().UTC().Format(time.RFC3339), res.Type, res.ID, u.Email.ID, outcome)
		}
		return nil
	}, func(err error) { fmt.Fprintf(stderr, "carteiro: %v (retrying)\n", err) })
}

// parseEventTypes reads --events.
func parseEventTypes(list string) (map[string]bool, error) {
	wanted := map[string]bool{}
	for t := range strings.SplitSeq(list, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !webhookEventTypes[strings.TrimPrefix(t, "email.")] || !strings.HasPrefix(t, "email.") {
			return nil, usageError{"webhook listen: unknown event type " + t}
		}
		wanted[t] = true
	}
	return wanted, nil
}

// newListenSecret is "whsec_" and 32 random base62 characters, the shape
// of the server's own secrets (D48), so D76 keys it the same way.
func newListenSecret() string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 32)
	for i := range b {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[n.Int64()]
	}
	return "whsec_" + string(b)
}

// listenRelay signs and POSTs events to the local app.
type listenRelay struct {
	target string
	secret string
	http   *http.Client
}

// forwarded is what listen prints for each event (a JSON line with --json).
type forwarded struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	EmailID string `json:"emailId"`
	// Status is the local app's HTTP status, 0 when it could not be reached.
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
}

// forward POSTs one event once, as the server would deliver it (D47):
// {id, type, createdAt, data: {emailId, from, to, subject, tags, ...the
// event's metadata}}.
func (r *listenRelay) forward(ctx context.Context, e sdk.Email, ev sdk.EmailEvent) forwarded {
	data := map[string]any{}
	for k, v := range ev.Metadata {
		data[k] = v
	}
	subject := ""
	if e.Subject != nil {
		subject = *e.Subject
	}
	tags := e.Tags
	if tags == nil {
		tags = []sdk.Tag{}
	}
	data["emailId"], data["from"], data["to"], data["subject"], data["tags"] = e.ID, e.From, e.To, subject, tags
	res := forwarded{ID: relayEventID(e.ID, ev), Type: "email." + ev.Type, EmailID: e.ID}
	body, err := json.Marshal(map[string]any{"id": res.ID, "type": res.Type, "createdAt": ev.Timestamp.UTC(), "data": data})
	if err != nil {
		res.Error = err.Error()
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.target, bytes.NewReader(body))
	if err != nil {
		res.Error = err.Error()
		return res
	}
	req.Header = webhook.Sign(r.secret, res.ID, time.Now(), body)
	req.Header.Set("User-Agent", "carteiro-cli-listen/"+version)
	resp, err := r.http.Do(req)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	res.Status = resp.StatusCode
	return res
}

// relayEventID is a UUID-shaped id derived from the email and the event,
// so the same event gets the same id in every run of the relay.
func relayEventID(emailID string, ev sdk.EmailEvent) string {
	sum := sha256.Sum256([]byte(emailID + "|" + eventKey(ev)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x80 // version 8: a custom, hash-based UUID (RFC 9562)
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
