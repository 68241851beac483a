package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
)

func assertOutputErr(t *testing.T, err error) {
	t.Helper()
	var e *carteiro.Error
	if !errors.As(err, &e) || e.Code != carteiro.CodeTemplateRenderError || e.Details["limit"] != "output" {
		t.Fatalf("want TEMPLATE_RENDER_ERROR over the output limit, got %v", err)
	}
}

func TestCheckRenderedPartsD60(t *testing.T) {
	t.Parallel()
	max := strings.Repeat("x", MaxRenderedPartBytes)
	if err := checkRenderedParts(carteiro.RenderedTemplate{HTML: max, Text: max}); err != nil {
		t.Fatalf("parts of exactly the limit: %v", err)
	}
	assertOutputErr(t, checkRenderedParts(carteiro.RenderedTemplate{HTML: max + "x"}))
	// A text generated from the HTML counts as much as a rendered one.
	assertOutputErr(t, checkRenderedParts(carteiro.RenderedTemplate{HTML: "<p>x</p>", Text: max + "x"}))
}

func TestRenderBudgetD60(t *testing.T) {
	t.Parallel()
	b := newRenderBudget()
	part := strings.Repeat("x", 4<<20)
	taken := 0
	for range 5 { // 5 x 8 MiB = 40 MiB, exactly the budget
		if err := b.take(&carteiro.Email{HTML: part, Text: part}); err != nil {
			t.Fatalf("after %d items: %v", taken, err)
		}
		taken++
	}
	assertOutputErr(t, b.take(&carteiro.Email{HTML: "x"}))
	// A refused item costs nothing; an empty one still fits.
	if err := b.take(&carteiro.Email{}); err != nil {
		t.Fatalf("empty item: %v", err)
	}
}
