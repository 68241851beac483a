package render

import "testing"

func TestHTMLToText(t *testing.T) {
	cases := map[string]string{
		`<p>Hello <b>Ana</b>,</p><p>Your code is 42.</p>`:                          "Hello Ana,\nYour code is 42.",
		`<style>p{color:red}</style><script>alert(1)</script><div>Only this</div>`: "Only this",
		`<p>See <a href="https://x.example/r">the receipt</a></p>`:                 "See the receipt (https://x.example/r)",
		`<p><a href="https://x.example">https://x.example</a></p>`:                 "https://x.example",
		`Line one<br>Line two`:          "Line one\nLine two",
		`<ul><li>a</li><li>b</li></ul>`: "a\nb",
		`Caf&eacute; &amp; p&atilde;o`:  "Café & pão",
	}
	for in, want := range cases {
		if got := HTMLToText(in); got != want {
			t.Errorf("HTMLToText(%q) = %q, want %q", in, got, want)
		}
	}
}
