package i18n

import "testing"

// TestMatch pins D10: pt-BR is the default, variants fall to their base
// language, q-values are honoured and anything unusable means pt-BR.
func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header string
		want   Lang
	}{
		{"", PtBR},
		{"pt-BR", PtBR},
		{"pt", PtBR},
		{"pt-PT", PtBR},
		{"en", En},
		{"en-US", En},
		{"EN-gb", En},
		{"en_US", En},
		{"es", Es},
		{"es-MX", Es},
		{"es-419", Es},
		{"es;q=0.1, en;q=0.9", En},
		{"en;q=0.9, es;q=0.1", En},
		{"fr-FR, es;q=0.5, en;q=0.4", Es},
		{"en, es", En},                  // equal weights: first listed wins
		{"es;q=0.5, en;q=0.5", Es},      // explicit tie too
		{"de", PtBR},                    // unsupported
		{"fr, de;q=0.8", PtBR},          // nothing supported
		{"*", PtBR},                     // any language: the default
		{"en;q=0.5, *", PtBR},           // the wildcard outranks en here
		{"*;q=0.1, es;q=0.2", Es},       // and loses here
		{"en;q=0", PtBR},                // q=0 means not acceptable
		{"en;q=0, es", Es},              //
		{"garbage!!", PtBR},             // not a tag
		{";;;,,,", PtBR},                // only separators
		{"en;q=abc", PtBR},              // malformed weight: range skipped
		{"en;q=2, es;q=0.3", Es},        // weight out of range: range skipped
		{"xx-invalid-!!, es;q=0.4", Es}, // one bad range spoils nothing else
		{" en-US ; q=0.8 , pt ; q=0.7 ", En},
	}
	for _, tt := range tests {
		if got := Match(tt.header); got != tt.want {
			t.Errorf("Match(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}
