package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
)

type walkProbe struct {
	Name  string            `json:"name"`
	Pad   string            `json:"pad"`
	Items []struct{ A int } `json:"items"`
	Ptr   *struct {
		B string `json:"b"`
	} `json:"ptr"`
	Any     map[string]any     `json:"any"`
	Raw     json.RawMessage    `json:"raw"`
	Content *attachmentContent `json:"content"`
}

// D60: a large body is decoded in place, without a json.Decoder's copy; it
// must answer exactly as the Decoder does for a small one.
func TestLargeBodiesDecodeLikeSmallOnesD60(t *testing.T) {
	t.Parallel()
	for _, members := range []string{
		`"name":"x"`,
		`"NAME":"x"`,
		`"n\u0061me":"x"`,
		`"bogus":1`,
		`"items":[{"a":1},{"a":2,"zz":3}]`,
		`"items":[{"A":1}]`,
		`"ptr":{"b":"s","c":1}`,
		`"ptr":null`,
		`"any":{"whatever":{"x":[1]}}`,
		`"raw":{"anything":"goes","x":[{"y":1}]}`,
		`"content":"aGk="`,
		`"content":{"x":1}`,
		`"name":1`,
		`"items":{"a":1}`,
		`"items":[{"a":"s"}]`,
		`"name":"a\"b\\", "ptr":{"b":"}"}`,
		`"name":"x",`,
		`"name" "x"`,
	} {
		small := "{" + members + "}"
		large := `{"pad":"` + strings.Repeat("p", largeBody) + `",` + members + "}"
		var a, b walkProbe
		errSmall, errLarge := DecodeJSON([]byte(small), &a, false), DecodeJSON([]byte(large), &b, false)
		es, el := carteiro.AsError(errSmall), carteiro.AsError(errLarge)
		if (errSmall == nil) != (errLarge == nil) || (errSmall != nil && (es.Code != el.Code || es.Field != el.Field || es.Reason != el.Reason)) {
			t.Errorf("%s: small body %v, large body %v", members, errSmall, errLarge)
			continue
		}
		if errSmall == nil && (a.Name != b.Name || len(a.Items) != len(b.Items)) {
			t.Errorf("%s: decoded %+v and %+v", members, a, b)
		}
	}
}
