package handlebars

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Values are what encoding/json decodes into any: map[string]any, []any,
// string, float64 or json.Number, bool and nil, or an orderedObject; they
// behave as the same JavaScript values behave in handlebars.js.

// orderedObject is an object that knows its members' order: a JSON object
// as the caller sent it (carteiro.JSONObject). {{#each}} over it follows
// that order, as handlebars.js does over the object JSON.parse built;
// a map[string]any has no order, so its keys are sorted.
type orderedObject interface {
	Keys() []string
	Get(key string) (any, bool)
}

// object is an orderedObject built here: a partial's context with its
// hash over it.
type object struct {
	keys   []string
	values map[string]any
}

func (o *object) Keys() []string { return o.keys }

func (o *object) Get(key string) (any, bool) {
	v, ok := o.values[key]
	return v, ok
}

func (o *object) set(key string, v any) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

// toNumber reports v as a float64 when it is a number.
func toNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// jsNumber formats a number as JavaScript's String(n) does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	// Shortest round-trip digits and exponent, then JavaScript's layout
	// (Number::toString, ECMA-262 6.1.6.1.20).
	e := strconv.FormatFloat(f, 'e', -1, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	mant, expPart, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expPart)
	k := len(digits)
	n := exp + 1
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		sign := "+"
		if n-1 < 0 {
			sign = "-"
		}
		m := digits[:1]
		if k > 1 {
			m += "." + digits[1:]
		}
		out = m + "e" + sign + strconv.Itoa(abs(n-1))
	}
	if neg {
		return "-" + out
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// toString converts like JavaScript's String(v), except that null and
// undefined print as "" (handlebars.js's escapeExpression does that).
func toString(v any) string {
	switch x := v.(type) {
	case nil, undefinedValue:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			// Array.prototype.join prints null and undefined as "".
			parts[i] = toString(e)
		}
		return strings.Join(parts, ",")
	case map[string]any, orderedObject:
		return "[object Object]"
	}
	if f, ok := toNumber(v); ok {
		return jsNumber(f)
	}
	return reflectString(v)
}

// reflectString handles typed Go values (tests and callers may pass
// []string or map[string]string): arrays join, maps are objects.
func reflectString(v any) string {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = toString(rv.Index(i).Interface())
		}
		return strings.Join(parts, ",")
	case reflect.Map, reflect.Struct:
		return "[object Object]"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jsNumber(float64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jsNumber(float64(rv.Uint()))
	case reflect.Float32:
		return jsNumber(rv.Float())
	case reflect.String:
		return rv.String()
	}
	return ""
}

// truthy is JavaScript truthiness.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil, undefinedValue:
		return false
	case bool:
		return x
	case string:
		return x != ""
	}
	if f, ok := toNumber(v); ok {
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// isEmpty is handlebars.js's Utils.isEmpty: falsy but not 0, or an empty
// array.
func isEmpty(v any) bool {
	if f, ok := toNumber(v); ok && f == 0 {
		return false
	}
	if !truthy(v) {
		return true
	}
	if arr, ok := asArray(v); ok && len(arr) == 0 {
		return true
	}
	return false
}

// asArray returns v's elements when it is an array.
func asArray(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case nil, string, map[string]any, orderedObject, bool, float64:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out, true
	}
	return nil, false
}

// asObject returns v's keys in JavaScript's enumeration order (integer
// keys ascending, then the others in the order they were added: for an
// orderedObject the order of the JSON the caller sent; Go maps keep no
// insertion order, so theirs follow in sorted order, see
// docs/templates.md) and a getter.
func asObject(v any) ([]string, func(string) any, bool) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return jsKeyOrder(keys), func(k string) any { return x[k] }, true
	case orderedObject:
		get := func(k string) any { val, _ := x.Get(k); return val }
		return jsKeyOrder(append([]string(nil), x.Keys()...)), get, true
	case nil, string, []any, bool, float64:
		return nil, nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, nil, false
	}
	m := make(map[string]any, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		m[iter.Key().String()] = iter.Value().Interface()
	}
	return asObject(m)
}

// jsKeyOrder puts keys, given in insertion order, in the order
// JavaScript enumerates an object's own keys (OrdinaryOwnPropertyKeys):
// array indices ascending first, then the others as they were.
func jsKeyOrder(keys []string) []string {
	sort.SliceStable(keys, func(i, j int) bool {
		ai, aok := arrayIndex(keys[i])
		bi, bok := arrayIndex(keys[j])
		switch {
		case aok && bok:
			return ai < bi
		case aok != bok:
			return aok
		}
		return false
	})
	return keys
}

// arrayIndex reports whether k is a canonical array index ("0", "12").
func arrayIndex(k string) (uint64, bool) {
	if k == "" || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 32)
	return n, err == nil && n < math.MaxUint32
}

// property reads obj[name] as handlebars.js's lookupProperty does for
// plain data: own properties of objects, array elements and lengths.
func property(obj any, name string) any {
	switch x := obj.(type) {
	case map[string]any:
		if v, ok := x[name]; ok {
			return v
		}
		return nil
	case orderedObject:
		v, _ := x.Get(name)
		return v
	case nil, undefinedValue, bool:
		return nil
	case string:
		if name == "length" {
			return float64(len([]rune(x)))
		}
		return nil
	case []any:
		if name == "length" {
			return float64(len(x))
		}
		if i, ok := arrayIndex(name); ok && i < uint64(len(x)) {
			return x[i]
		}
		return nil
	}
	if arr, ok := asArray(obj); ok {
		return property(arr, name)
	}
	if _, get, ok := asObject(obj); ok {
		return get(name)
	}
	return nil
}

// sameValue is JavaScript's == for what a context can be: identity for
// objects and arrays, equality for the rest.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case nil, undefinedValue:
		switch b.(type) {
		case nil, undefinedValue:
			return true
		}
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

// escapeHTML is handlebars.js's escapeExpression for strings.
func escapeHTML(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&quot;"
		case '\'':
			rep = "&#x27;"
		case '`':
			rep = "&#x60;"
		case '=':
			rep = "&#x3D;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}
