package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

func orgCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv env) error {
	if len(args) == 0 {
		return usageError{"org: want create, list, set-password or enable-totp"}
	}
	fs := flag.NewFlagSet("org "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "", "organization name")
	orgID := fs.String("org", "", "organization id")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	switch args[0] {
	case "create":
		if *name == "" {
			return usageError{"org create: --name is required"}
		}
	case "list":
		if fs.NArg() != 0 {
			return usageError{"org list: takes no arguments"}
		}
	case "set-password", "enable-totp":
		if *orgID == "" {
			return usageError{"org " + args[0] + ": --org is required"}
		}
	default:
		return usageError{fmt.Sprintf("org: unknown subcommand %q", args[0])}
	}
	srv, err := openQuiet(ctx, stderr, lookupEnv)
	if err != nil {
		return err
	}
	defer srv.Shutdown(context.Background())

	switch args[0] {
	case "create":
		org, err := srv.App.CreateOrganization(ctx, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]string{"id": org.ID, "name": org.Name})
		}
		fmt.Fprintf(stdout, "organization %s created: %s\n", org.Name, org.ID)
	case "list":
		orgs, err := srv.App.ListOrganizations(ctx)
		if err != nil {
			return err
		}
		return printOrganizations(stdout, orgs, *asJSON)
	case "set-password":
		fmt.Fprintln(stderr, "password (read from standard input):")
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("read password: %w", err)
		}
		if err := srv.App.SetPassword(ctx, *orgID, strings.TrimRight(line, "\r\n")); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "password set: DELETE /domains/:id now needs method=password and the credential")
	case "enable-totp":
		secret, url, err := srv.App.EnableTOTP(ctx, *orgID)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]string{"secret": secret, "otpauthUrl": url})
		}
		fmt.Fprintf(stdout, "TOTP secret: %s\n%s\n", secret, url)
	}
	return nil
}

func keyCommand(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	if len(args) == 0 {
		return usageError{"key: want create, list or revoke"}
	}
	fs := flag.NewFlagSet("key "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	orgID := fs.String("org", "", "organization id")
	name := fs.String("name", "", "key name")
	mode := fs.String("mode", "", "live or test")
	permission := fs.String("permission", string(carteiro.PermissionFull), "full_access or sending_access")
	domain := fs.String("domain", "", "only allow this from domain")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	switch args[0] {
	case "create":
		if *orgID == "" || *name == "" || *mode == "" {
			return usageError{"key create: --org, --name and --mode are required"}
		}
	case "list":
		if *orgID == "" {
			return usageError{"key list: --org is required"}
		}
	case "revoke":
		if fs.NArg() != 1 {
			return usageError{"key revoke: want exactly one key id"}
		}
	default:
		return usageError{fmt.Sprintf("key: unknown subcommand %q", args[0])}
	}
	srv, err := openQuiet(ctx, stderr, lookupEnv)
	if err != nil {
		return err
	}
	defer srv.Shutdown(context.Background())

	switch args[0] {
	case "create":
		nk, err := srv.App.CreateKey(ctx, app.KeyRequest{OrgID: *orgID, Name: *name, Mode: carteiro.Mode(*mode),
			Permission: carteiro.Permission(*permission), Domain: *domain})
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]string{"id": nk.Key.ID, "key": nk.Secret, "name": nk.Key.Name,
				"mode": string(nk.Key.Mode), "permission": string(nk.Key.Permission)})
		}
		fmt.Fprintf(stdout, "key %s created (shown only now):\n%s\n", nk.Key.ID, nk.Secret)
	case "list":
		keys, err := srv.App.ListKeys(ctx, *orgID)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []map[string]any{}
			for _, k := range keys {
				out = append(out, map[string]any{"id": k.ID, "name": k.Name, "mode": k.Mode, "permission": k.Permission,
					"domain": k.Domain, "prefix": k.Prefix, "createdAt": k.CreatedAt, "revokedAt": k.RevokedAt,
					"createdBy": k.CreatedBy, "lastUsedAt": k.LastUsedAt})
			}
			return json.NewEncoder(stdout).Encode(map[string]any{"keys": out})
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tMODE\tPERMISSION\tDOMAIN\tPREFIX\tCREATED\tREVOKED")
		for _, k := range keys {
			revoked := ""
			if k.RevokedAt != nil {
				revoked = k.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s…\t%s\t%s\n", k.ID, k.Name, k.Mode, k.Permission, k.Domain, k.Prefix,
				k.CreatedAt.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		if err := srv.App.RevokeKey(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "key %s revoked\n", fs.Arg(0))
	}
	return nil
}
