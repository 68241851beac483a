package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
)

// userCommand manages dashboard users (D73). The password is read from
// standard input, never from the command line, where `ps` would show it.
func userCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv env) error {
	if len(args) == 0 || args[0] != "create" {
		return usageError{"user: want create"}
	}
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	orgID := fs.String("org", "", "organization id")
	email := fs.String("email", "", "the user's email, used to sign in")
	role := fs.String("role", string(carteiro.RoleMember), "owner or member")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	switch {
	case *orgID == "":
		return usageError{"user create: --org is required"}
	case *email == "":
		return usageError{"user create: --email is required"}
	case !carteiro.ValidRole(carteiro.Role(*role)):
		return usageError{fmt.Sprintf("user create: --role: want owner or member, got %q", *role)}
	}
	fmt.Fprintln(stderr, "password (read from standard input):")
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("read password: %w", err)
	}
	srv, err := openQuiet(ctx, stderr, lookupEnv)
	if err != nil {
		return err
	}
	defer srv.Shutdown(context.Background())
	u, err := srv.App.CreateUser(ctx, app.UserRequest{OrgID: *orgID, Email: *email,
		Password: strings.TrimRight(line, "\r\n"), Role: carteiro.Role(*role)})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]string{"id": u.ID, "email": u.Email, "role": string(u.Role)})
	}
	fmt.Fprintf(stdout, "user %s (%s) created: %s\n", u.Email, u.Role, u.ID)
	return nil
}
