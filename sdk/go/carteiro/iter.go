package carteiro

import (
	"context"
	"iter"
)

// cursorPages yields the items of every page of a cursor-paginated list
// (emails, broadcasts, suppressions: D27): fetch gets the page after the
// cursor ("" for the first) and returns its items and nextCursor, nil at
// the end. An error is yielded once, and ends the sequence.
func cursorPages[T any](ctx context.Context, fetch func(ctx context.Context, after string) ([]T, *string, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		after := ""
		for {
			items, next, err := fetch(ctx, after)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yieldAll(items, yield) {
				return
			}
			if next == nil || *next == "" || len(items) == 0 || *next == after {
				return
			}
			after = *next
		}
	}
}

// offsetPages yields the items of an offset-paginated list (audiences,
// contacts): fetch gets the page at offset and returns its items and the
// total.
func offsetPages[T any](ctx context.Context, offset int, fetch func(ctx context.Context, offset int) ([]T, int, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for {
			items, total, err := fetch(ctx, offset)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yieldAll(items, yield) {
				return
			}
			offset += len(items)
			if len(items) == 0 || offset >= total {
				return
			}
		}
	}
}

// onePage yields the items of a list the API answers whole (domains,
// senders, webhooks, templates, deliveries), so every list reads the same.
func onePage[T any](ctx context.Context, fetch func(ctx context.Context) ([]T, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		items, err := fetch(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		yieldAll(items, yield)
	}
}

// yieldAll yields a pointer to each item; false when the loop broke.
func yieldAll[T any](items []T, yield func(*T, error) bool) bool {
	for i := range items {
		if !yield(&items[i], nil) {
			return false
		}
	}
	return true
}
