package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	sdk "github.com/carteiro/carteiro/sdk/go/carteiro"
)

// Settings of the API client commands (send, emails tail, webhook
// listen), read when the flags are not given.
const (
	envAPIURL = "CARTEIRO_API_URL"
	envAPIKey = "CARTEIRO_API_KEY"
	// defaultAPIURL is the server `carteiro serve` starts on this machine
	// (CARTEIRO_HTTP_ADDR's default :8080).
	defaultAPIURL = "http://127.0.0.1:8080"
	// requestTimeout bounds each request: accepting an email is one
	// database write, and a page of emails one query, so a server that
	// takes longer is not answering.
	requestTimeout = 30 * time.Second
)

// stringList is a repeatable flag (--to a --to b).
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// sendCommand is `carteiro send`: one POST /v1/product/emails to a running
// server, with an API key, so the email goes through exactly the checks,
// limits and records of any API client (unlike the org and key commands,
// which are the operator's and work on the database). The key comes from
// CARTEIRO_API_KEY rather than a flag where possible: a flag shows in the
// process list.
func sendCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var to stringList
	from := fs.String("from", "", "sender address, such as \"Acme <hi@acme.example>\"")
	fs.Var(&to, "to", "recipient address (repeat for several)")
	subject := fs.String("subject", "", "subject")
	htmlFile := fs.String("html", "", "file holding the HTML body (- for standard input)")
	text := fs.String("text", "", "plain-text body")
	sandbox := fs.Bool("test", false, "sandbox: simulate the sending, deliver nothing (isSandbox)")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	switch {
	case fs.NArg() != 0:
		return usageError{"send: unexpected argument " + fs.Arg(0)}
	case *from == "" || len(to) == 0 || *subject == "":
		return usageError{"send: --from, --to and --subject are required"}
	case *htmlFile == "" && *text == "":
		return usageError{"send: give --html FILE, --text TEXT or both"}
	}
	client, err := api.client("send", lookupEnv)
	if err != nil {
		return err
	}

	req := &sdk.SendEmailRequest{From: *from, To: to, Subject: *subject, Text: *text, IsSandbox: *sandbox}
	if *htmlFile != "" {
		if req.HTML, err = readBodyFile(*htmlFile, stdin); err != nil {
			return err
		}
	}
	// Through the Go SDK: an idempotency key of its own, so a retry after a
	// 429 or 5xx never sends twice.
	accepted, err := client.Emails.Send(ctx, req)
	if err != nil {
		return fmt.Errorf("send: %w", describeAPIError(err))
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(accepted)
	}
	fmt.Fprintf(stdout, "email %s %s\n", accepted.ID, accepted.Status)
	return nil
}

// readBodyFile reads --html's file, or standard input for "-".
func readBodyFile(name string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("send: read --html: %w", err)
	}
	return string(b), nil
}
