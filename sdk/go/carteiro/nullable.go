package carteiro

import "encoding/json"

// Nullable is a field of an update request that is either left out (a nil
// *Nullable), set to a value (Set), or cleared with a JSON null (Null): the
// three things "description (string or null; null clears)" can mean.
type Nullable[T any] struct {
	value T
	valid bool
}

// Set is a field set to v.
func Set[T any](v T) *Nullable[T] { return &Nullable[T]{value: v, valid: true} }

// Null is a field cleared (JSON null).
func Null[T any]() *Nullable[T] { return &Nullable[T]{} }

// Get returns the value and whether there is one (false for null).
func (n Nullable[T]) Get() (T, bool) { return n.value, n.valid }

func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Nullable[T]{}
		return nil
	}
	n.valid = true
	return json.Unmarshal(b, &n.value)
}
