package httpapi

import (
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/carteiro/carteiro"
)

// timeParam names an optional ISO 8601 query parameter and where it goes.
type timeParam struct {
	name string
	dst  **time.Time
}

// queryTimes reads optional time parameters in order; the first malformed
// one is a 422 naming it.
func queryTimes(q url.Values, params ...timeParam) error {
	for _, p := range params {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		t, ok := parseTime(v)
		if !ok {
			return carteiro.Invalid(p.name, "invalid_date")
		}
		*p.dst = &t
	}
	return nil
}

// queryLimit reads the optional limit parameter (0 when absent); the use
// case checks its upper bound.
func queryLimit(q url.Values) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if errors.Is(err, strconv.ErrSyntax) {
		return 0, carteiro.Invalid("limit", "invalid_type") // "abc", "1.5": not an integer
	}
	if err != nil || n < 1 {
		return 0, carteiro.Invalid("limit", "out_of_range")
	}
	return n, nil
}
