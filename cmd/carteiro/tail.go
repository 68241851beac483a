package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// emailsCommand is `carteiro emails ...`.
func emailsCommand(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	if len(args) == 0 || args[0] != "tail" {
		return usageError{"emails: want tail"}
	}
	return tailCommand(ctx, args[1:], stdout, stderr, lookupEnv)
}

// tailCommand is `carteiro emails tail`: the emails the key's organization
// sends from now on (or --since ago), and each event of their timelines as
// it happens, until interrupted.
func tailCommand(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("emails tail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := addWatchFlags(fs, "also show the emails created up to this long before the newest one (such as 10m)")
	if err := f.parse(fs, args); err != nil {
		return err
	}
	ctx, stop, w, err := f.start(ctx, "emails tail", lookupEnv)
	if err != nil {
		return err
	}
	defer stop()
	// On stderr even with --json: stdout stays JSON lines, and a script can
	// wait for this line to know that what it sends next will show.
	fmt.Fprintf(stderr, "Watching the emails of this key's organization (every %s; Ctrl-C to stop)\n", *f.interval)
	out := json.NewEncoder(stdout)
	return w.run(ctx, *f.interval, func(u emailUpdate) error {
		if *f.asJSON {
			return printTailJSON(out, u)
		}
		printTailText(stdout, u)
		return nil
	}, func(err error) { fmt.Fprintf(stderr, "carteiro: %v (retrying)\n", err) })
}

// printTailJSON writes {"kind":"email","email":{...}} for a new email and
// {"kind":"event","emailId":"...","event":{...}} for each event.
func printTailJSON(out *json.Encoder, u emailUpdate) error {
	if u.New {
		if err := out.Encode(map[string]any{"kind": "email", "email": u.Email}); err != nil {
			return err
		}
	}
	for _, ev := range u.Events {
		if err := out.Encode(map[string]any{"kind": "event", "emailId": u.Email.ID, "event": ev}); err != nil {
			return err
		}
	}
	return nil
}

// printTailText writes one line per new email and per event:
//
//	2026-11-27T14:20:01Z  email  <id>  orders@shop.example -> ana@x.example  "Subject"
//	2026-11-27T14:20:02Z  sent   <id>  mx=mx.x.example response=250 OK
func printTailText(w io.Writer, u emailUpdate) {
	if u.New {
		subject := ""
		if u.Email.Subject != nil {
			subject = *u.Email.Subject
		}
		fmt.Fprintf(w, "%s  %-16s  %s  %s -> %s  %q\n", u.Email.CreatedAt.UTC().Format(time.RFC3339), "email", u.Email.ID,
			u.Email.From, strings.Join(u.Email.To, ", "), subject)
	}
	for _, ev := range u.Events {
		fmt.Fprintf(w, "%s  %-16s  %s  %s\n", ev.Timestamp.UTC().Format(time.RFC3339), ev.Type, u.Email.ID, formatMetadata(ev.Metadata))
	}
}

// formatMetadata is key=value pairs in key order.
func formatMetadata(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}
