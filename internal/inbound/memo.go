package inbound

import "context"

// Memo keeps what the Handler learned about one SMTP transaction, from
// MAIL to the end of its DATA (or RSET), so that DATA need not ask the
// store again what RCPT just asked: the recipient domains' lookups
// (issue 28). The session gives the same Memo to every call of one
// transaction and a fresh one to the next; it is used by one goroutine at
// a time, like the session.
type Memo struct {
	values map[any]any
}

// Remember keeps value under key for the rest of the transaction. A nil
// Memo (a context without one) keeps nothing.
func (m *Memo) Remember(key, value any) {
	if m == nil {
		return
	}
	if m.values == nil {
		m.values = map[any]any{}
	}
	m.values[key] = value
}

// Recall returns what Remember kept under key in this transaction.
func (m *Memo) Recall(key any) (any, bool) {
	if m == nil {
		return nil, false
	}
	v, ok := m.values[key]
	return v, ok
}

type memoKey struct{}

func withMemo(ctx context.Context, m *Memo) context.Context {
	return context.WithValue(ctx, memoKey{}, m)
}

// MemoFrom is the Memo of the transaction a Handler call belongs to, nil
// outside one (its methods then keep and find nothing).
func MemoFrom(ctx context.Context) *Memo {
	m, _ := ctx.Value(memoKey{}).(*Memo)
	return m
}
