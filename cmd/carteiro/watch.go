package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	sdk "github.com/carteiro/carteiro/sdk/go/carteiro"
)

// emailWatcher finds, by polling the API, the emails created since a time
// and the events of their timelines as they are added: what `carteiro
// emails tail` prints and `carteiro webhook listen` forwards. The API has
// no stream of events, and a developer's laptop usually cannot receive the
// server's webhooks (they go only to public HTTPS addresses, D51), so
// polling with the key is what works from anywhere. Each poll is one list
// of the emails since the start, page by page, and one timeline read per
// email whose record changed since the last poll.
type emailWatcher struct {
	client *sdk.Client
	// since is the createdAt from which emails are listed (zero: all).
	since time.Time
	// known holds, per email id, the email as last read (to notice a
	// change) and the events already reported.
	known map[string]*watchedEmail
}

type watchedEmail struct {
	snapshot string
	events   map[string]bool
}

// emailUpdate is what one poll found about one email: New on the first
// poll that lists it, and its timeline events not reported before.
type emailUpdate struct {
	Email  sdk.Email
	New    bool
	Events []sdk.EmailEvent
}

func newEmailWatcher(client *sdk.Client) *emailWatcher {
	return &emailWatcher{client: client, known: map[string]*watchedEmail{}}
}

// start sets where the watch begins on the server's clock, not this
// machine's (a laptop's clock may be ahead of the server's): at the newest
// email's createdAt, less lookback. Without lookback, the emails that exist
// already are read once, silently, so only what happens from now on is
// reported, including the later events of those emails.
func (w *emailWatcher) start(ctx context.Context, lookback time.Duration) error {
	page, err := w.client.Emails.ListPage(ctx, &sdk.EmailListParams{Limit: 1})
	if err != nil {
		return fmt.Errorf("list emails: %w", describeAPIError(err))
	}
	if len(page.Emails) == 0 {
		return nil // nothing sent yet: everything is new
	}
	w.since = page.Emails[0].CreatedAt.Add(-lookback)
	if lookback > 0 {
		return nil
	}
	_, err = w.poll(ctx)
	return err
}

// run polls every interval until ctx ends, calling fn for each update,
// oldest email first. A failed poll is reported to onError and retried at
// the next tick (a server restarting should not end a tail).
func (w *emailWatcher) run(ctx context.Context, interval time.Duration, fn func(emailUpdate) error, onError func(error)) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		updates, err := w.poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			onError(err)
		}
		for _, u := range updates {
			if err := fn(u); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// poll lists the emails since the start and returns what changed.
func (w *emailWatcher) poll(ctx context.Context) ([]emailUpdate, error) {
	var emails []sdk.Email
	for e, err := range w.client.Emails.List(ctx, &sdk.EmailListParams{From: w.since, Limit: 100}) {
		if err != nil {
			return nil, fmt.Errorf("list emails: %w", describeAPIError(err))
		}
		emails = append(emails, *e)
	}
	slices.Reverse(emails) // the API lists newest first
	var updates []emailUpdate
	for _, e := range emails {
		snapshot, err := json.Marshal(e)
		if err != nil {
			return updates, err
		}
		k, seen := w.known[e.ID]
		if seen && k.snapshot == string(snapshot) {
			continue
		}
		tl, err := w.client.Emails.Events(ctx, e.ID)
		if err != nil {
			return updates, fmt.Errorf("events of email %s: %w", e.ID, describeAPIError(err))
		}
		if !seen {
			k = &watchedEmail{events: map[string]bool{}}
			w.known[e.ID] = k
		}
		k.snapshot = string(snapshot)
		u := emailUpdate{Email: e, New: !seen}
		for _, ev := range tl.Events {
			key := eventKey(ev)
			if !k.events[key] {
				k.events[key] = true
				u.Events = append(u.Events, ev)
			}
		}
		if u.New || len(u.Events) > 0 {
			updates = append(updates, u)
		}
	}
	return updates, nil
}

// eventKey identifies a timeline event: the timeline has no event ids, and
// two events of one type at one instant differ by their metadata (one per
// recipient).
func eventKey(ev sdk.EmailEvent) string {
	meta, _ := json.Marshal(ev.Metadata) // map keys are sorted
	return ev.Type + "|" + ev.Timestamp.UTC().Format(time.RFC3339Nano) + "|" + string(meta)
}

// defaultPollInterval is how often tail and listen ask the API: often
// enough to feel live, seldom enough to stay far below the key's rate limit.
const defaultPollInterval = 2 * time.Second

// watchFlags are the flags `emails tail` and `webhook listen` share.
type watchFlags struct {
	api      apiFlags
	since    *time.Duration
	interval *time.Duration
	asJSON   *bool
}

func addWatchFlags(fs *flag.FlagSet, sinceUsage string) watchFlags {
	return watchFlags{
		api:      addAPIFlags(fs),
		since:    fs.Duration("since", 0, sinceUsage),
		interval: fs.Duration("interval", defaultPollInterval, "how often to ask the API"),
		asJSON:   fs.Bool("json", false, "print one JSON object per line"),
	}
}

// parse reads the command line; every mistake is a usage error.
func (f watchFlags) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 0 {
		return usageError{fs.Name() + ": unexpected argument " + fs.Arg(0)}
	}
	if *f.interval < 100*time.Millisecond || *f.since < 0 {
		return usageError{fs.Name() + ": --interval must be at least 100ms and --since not negative"}
	}
	return nil
}

// start returns a watcher past its start (see emailWatcher.start) and a
// context that ends on Ctrl-C or SIGTERM.
func (f watchFlags) start(ctx context.Context, command string, lookupEnv env) (context.Context, context.CancelFunc, *emailWatcher, error) {
	client, err := f.api.client(command, lookupEnv)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	w := newEmailWatcher(client)
	if err := w.start(ctx, *f.since); err != nil {
		stop()
		return nil, nil, nil, err
	}
	return ctx, stop, w, nil
}
