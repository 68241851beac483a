package app

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/secrets"
)

func returnPathApp(t *testing.T, secret string) *App {
	t.Helper()
	box, err := secrets.NewBox(secret)
	if err != nil {
		t.Fatal(err)
	}
	return &App{box: box, cfg: Config{BounceHost: "bounces.carteiro.test"}}
}

// D65: the token names the email and the recipient, survives case folding,
// fits a local part, and refuses any change, another key and the older
// per-email token's purpose.
func TestReturnPathTokenD65(t *testing.T) {
	t.Parallel()
	a := returnPathApp(t, "0123456789abcdefghijklmnopqrstuv")
	e := &carteiro.Email{ID: uuid.Must(uuid.NewV7()).String(), DomainID: "d1", From: carteiro.Address{Email: "orders@shop.example"}}
	for _, position := range []int{0, 1, 2, 49, 65535} {
		addr := a.returnPathFor(e, &carteiro.Recipient{Position: position})
		local, domain, _ := strings.Cut(addr, "@")
		if domain != "bounces.shop.example" || !strings.HasPrefix(local, "bounces+") || len(local) > maxLocalPart {
			t.Fatalf("return path %q: want bounces+<token>@bounces.shop.example, local part <= %d octets", addr, maxLocalPart)
		}
		for _, spelled := range []string{addr, strings.ToUpper(addr)} {
			tok, ok := a.parseReturnPath(spelled)
			if !ok || tok.emailID != e.ID || tok.position != position {
				t.Fatalf("parseReturnPath(%q) = %+v, %v; want %s, %d", spelled, tok, ok, e.ID, position)
			}
		}
		for i := len("bounces+"); i < len(local); i++ {
			c := byte('a')
			if local[i] == 'a' {
				c = 'b'
			}
			tampered := addr[:i] + string(c) + addr[i+1:]
			if tok, ok := a.parseReturnPath(tampered); ok {
				t.Fatalf("tampered %q accepted as %+v", tampered, tok)
			}
		}
		if _, ok := returnPathApp(t, "another secret of at least 32 characters").parseReturnPath(addr); ok {
			t.Fatal("a token verified under another secret")
		}
	}
	// A token from before D65 still names the email, and no recipient.
	id := uuid.MustParse(e.ID)
	legacy := "bounces+" + a.box.Sign("bounce", id[:]) + "@bounces.shop.example"
	if tok, ok := a.parseReturnPath(legacy); !ok || tok.emailID != e.ID || tok.position != -1 {
		t.Fatalf("legacy token: %+v, %v", tok, ok)
	}
	// The per-email purpose does not pass for the per-recipient one.
	forged := "bounces+" + a.box.SignCompact("bounce", returnPathPayload(e.ID, 1)) + "@bounces.shop.example"
	if _, ok := a.parseReturnPath(forged); ok {
		t.Fatal("a token signed for another purpose was accepted")
	}
	for _, s := range []string{"", "bounces+", "bounces+@x", "someone@bounces.shop.example", "postmaster"} {
		if _, ok := a.parseReturnPath(s); ok {
			t.Errorf("parseReturnPath(%q) accepted", s)
		}
	}
}
