// Command carteiro is the Carteiro email service: one binary for the API,
// the workers and the command line (D1, D57). It only wires things together.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv))
}

// env is how commands read settings (os.LookupEnv in production).
type env func(string) (string, bool)

// run dispatches a command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv env) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stdout, stderr, lookupEnv)
	case "migrate":
		err = migrate(ctx, args[1:], stdout, stderr, lookupEnv)
	case "backup":
		err = backup(ctx, args[1:], stdout, stderr, lookupEnv)
	case "restore":
		err = restore(ctx, args[1:], stdout, stderr, lookupEnv)
	case "org":
		err = orgCommand(ctx, args[1:], stdin, stdout, stderr, lookupEnv)
	case "key":
		err = keyCommand(ctx, args[1:], stdout, stderr, lookupEnv)
	case "user":
		err = userCommand(ctx, args[1:], stdin, stdout, stderr, lookupEnv)
	case "send":
		err = sendCommand(ctx, args[1:], stdin, stdout, stderr, lookupEnv)
	case "emails":
		err = emailsCommand(ctx, args[1:], stdout, stderr, lookupEnv)
	case "webhook":
		err = webhookCommand(ctx, args[1:], stdout, stderr, lookupEnv)
	case "render-worker":
		// Hidden: the server starts itself as a render worker with this
		// argument and CARTEIRO_RENDER_WORKER=1, which internal/render/worker
		// catches before main runs (D61). Reaching here means neither.
		err = usageError{"render-worker is started by carteiro serve itself"}
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "carteiro", version)
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "carteiro: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "carteiro: %v\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "carteiro: %v\n", err)
		return 1
	}
	return 0
}

// usageError is a wrong command line (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `Carteiro: transactional email service.

Usage:
  carteiro serve [--role all|api|worker]     run the service (API, workers)
  carteiro migrate                           apply database migrations and exit
  carteiro backup --to FILE                  copy the SQLite database while the service runs
  carteiro restore --from FILE               check a copy and put it in place (service stopped)
  carteiro org create --name N [--json]      create an organization
  carteiro org list [--json]                 list organizations
  carteiro org set-password --org ID         set the reauthentication password (read from stdin)
  carteiro org enable-totp --org ID          create a TOTP secret for reauthentication
  carteiro key create --org ID --name N --mode live|test
                      [--permission full_access|sending_access] [--domain D] [--json]
  carteiro key list --org ID [--json]        list keys (never their secrets)
  carteiro key revoke ID                     revoke a key
  carteiro user create --org ID --email E [--role owner|member] [--json]
                                             add a dashboard user (password read
                                             from stdin)
  carteiro send --from A --to B [--to C] --subject S (--html FILE | --text T)
                [--test] [--json] [--api URL] [--key K]
                                             send one email through a running
                                             server's API ($CARTEIRO_API_KEY,
                                             $CARTEIRO_API_URL)
  carteiro emails tail [--since D] [--interval D] [--json] [--api URL] [--key K]
                                             print new emails and their events
                                             as they happen (polls the API)
  carteiro webhook listen --forward-to URL [--secret S] [--events T,...]
                [--since D] [--interval D] [--json] [--api URL] [--key K]
                                             forward the organization's events,
                                             signed like webhooks, to a local
                                             app (development relay)
  carteiro version                           print the version

Settings are CARTEIRO_* environment variables; see docs/configuration.md.
`
