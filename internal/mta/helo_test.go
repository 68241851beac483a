package mta

import "testing"

// TestDefaultHeloName is D68: the machine's name when fully qualified,
// else the bounce host; never the short name receivers refuse.
func TestDefaultHeloName(t *testing.T) {
	for _, tc := range []struct{ host, bounce, want string }{
		{"vm", "bounces.shop.example", "bounces.shop.example"},
		{"", "bounces.shop.example", "bounces.shop.example"},
		{"mail.shop.example", "bounces.shop.example", "mail.shop.example"},
		{"mail.shop.example.", "bounces.shop.example", "mail.shop.example"},
	} {
		if got := DefaultHeloName(tc.host, tc.bounce); got != tc.want {
			t.Errorf("DefaultHeloName(%q, %q) = %q, want %q", tc.host, tc.bounce, got, tc.want)
		}
	}
}

// TestHeloNameProblem: serve warns about a name without a dot or in
// .localhost (D68).
func TestHeloNameProblem(t *testing.T) {
	for name, bad := range map[string]bool{
		"vm": true, "localhost": true, "bounces.carteiro.localhost": true, "mail.shop.example": false, "MAIL.SHOP.EXAMPLE.": false,
	} {
		if got := HeloNameProblem(name) != ""; got != bad {
			t.Errorf("HeloNameProblem(%q) = %q, want a problem: %v", name, HeloNameProblem(name), bad)
		}
	}
}
