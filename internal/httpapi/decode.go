package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/carteiro/carteiro"
)

// jsonSpace is the whitespace JSON allows around values (RFC 8259).
const jsonSpace = " \t\r\n"

// MaxBodyBytes is D14's request body limit.
const MaxBodyBytes = 40 << 20

// readBody reads the whole body under the limit; over it is a 413. A body
// with a Content-Length is read into one buffer of that size: io.ReadAll's
// growing buffer would leave about as much again behind as garbage (D60).
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxBodyBytes {
		// Read (up to the limit) without keeping, as before, so the client
		// that is still sending gets the 413 rather than a reset.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxBodyBytes+1))
		return nil, &carteiro.Error{Code: carteiro.CodePayloadTooLarge}
	}
	var body []byte
	var err error
	if r.ContentLength > 0 {
		body = make([]byte, r.ContentLength)
		var n int
		n, err = io.ReadFull(r.Body, body)
		body = body[:n]
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	}
	if err != nil {
		return nil, inflightErr(&carteiro.Error{Code: carteiro.CodeInvalidJSON, Err: err})
	}
	if len(body) > MaxBodyBytes {
		return nil, &carteiro.Error{Code: carteiro.CodePayloadTooLarge}
	}
	return body, nil
}

// inflightErr is a 503 SERVICE_UNAVAILABLE for a body that found no room
// among those in flight (D60), else err unchanged.
func inflightErr(err error) error {
	if errors.Is(err, errInflightFull) {
		return &carteiro.Error{Code: carteiro.CodeServiceUnavailable, Err: err}
	}
	return err
}

// DecodeJSON decodes a JSON object body into dst strictly (D11, D12): not
// JSON or not an object is 400 INVALID_JSON; an unknown field or a wrong type
// is 422 VALIDATION_ERROR naming the field. An empty body decodes as {} when
// optional is true.
func DecodeJSON(body []byte, dst any, optional bool) error {
	// Only JSON's own whitespace: bytes.TrimSpace would also drop a form
	// feed and accept a body that is not JSON.
	trimmed := bytes.Trim(body, jsonSpace)
	if len(trimmed) == 0 {
		if optional {
			return nil
		}
		return &carteiro.Error{Code: carteiro.CodeInvalidJSON}
	}
	if trimmed[0] != '{' {
		return &carteiro.Error{Code: carteiro.CodeInvalidJSON}
	}
	if len(trimmed) >= largeBody {
		return decodeInPlace(trimmed, dst)
	}
	// The decoder checks the syntax of the whole object before it fills
	// dst, so no separate pass of json.Valid is needed (a tenth of a bulk
	// import's decoding); what follows the object must be nothing. Bad
	// syntax anywhere is a 400 before any 422 of a field.
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || dec.InputOffset() != int64(len(trimmed)) {
		return &carteiro.Error{Code: carteiro.CodeInvalidJSON, Err: err}
	}
	if err != nil {
		return decodeError(err)
	}
	return nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			return &carteiro.Error{Code: carteiro.CodeInvalidJSON, Err: err}
		}
		return &carteiro.Error{Code: carteiro.CodeValidation, Field: field, Reason: "invalid_type", Err: err}
	}
	const unknown = "json: unknown field "
	if msg := err.Error(); strings.HasPrefix(msg, unknown) {
		field, uerr := strconv.Unquote(strings.TrimPrefix(msg, unknown))
		if uerr != nil {
			field = strings.Trim(strings.TrimPrefix(msg, unknown), `"`)
		}
		return &carteiro.Error{Code: carteiro.CodeValidation, Field: field, Reason: "unknown_field"}
	}
	return &carteiro.Error{Code: carteiro.CodeInvalidJSON, Err: err}
}

// decodeInPlace is DecodeJSON for a large body (largeBody): json.Unmarshal
// reads body where it is, with no buffer of its own; knownFields then
// refuses unknown members. Bad syntax is reported first, then an unknown
// member, then a wrong type (a Decoder reports the last two in body order).
func decodeInPlace(body []byte, dst any) error {
	err := json.Unmarshal(body, dst)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return &carteiro.Error{Code: carteiro.CodeInvalidJSON, Err: err}
	}
	if err := knownFields(body, reflect.TypeOf(dst)); err != nil {
		return err
	}
	if err != nil {
		return decodeError(err)
	}
	return nil
}
