package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/carteiro/carteiro"
)

// printOrganizations writes `carteiro org list`: a table, or with asJSON one
// object {"organizations": [...]}. Neither shows a credential: only whether
// a reauthentication password or TOTP is set (D8).
func printOrganizations(w io.Writer, orgs []*carteiro.Organization, asJSON bool) error {
	if asJSON {
		out := []map[string]any{}
		for _, o := range orgs {
			out = append(out, map[string]any{"id": o.ID, "name": o.Name, "createdAt": o.CreatedAt.UTC(),
				"passwordSet": o.PasswordHash != "", "totpEnabled": o.TOTPSecret != ""})
		}
		return json.NewEncoder(w).Encode(map[string]any{"organizations": out})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCREATED\tPASSWORD\tTOTP")
	for _, o := range orgs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.ID, o.Name, o.CreatedAt.UTC().Format(time.RFC3339),
			yesNo(o.PasswordHash != ""), yesNo(o.TOTPSecret != ""))
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
