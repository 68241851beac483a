package store

import "time"

// cutPage applies D27's rule to rows fetched newest first with limit+1:
// a page never splits rows that share one createdAt. It ends before such a
// group or, when the group alone exceeds the limit, holds the whole group
// (fetched by wholeGroup). It returns the page and the next cursor (nil on
// the last page).
func cutPage[T any](rows []T, limit int, createdAt func(T) time.Time, wholeGroup func(time.Time) ([]T, error)) ([]T, *time.Time, error) {
	if len(rows) <= limit {
		return rows, nil, nil
	}
	boundary := createdAt(rows[limit])
	page := rows[:limit]
	cut := len(page)
	for cut > 0 && createdAt(page[cut-1]).Equal(boundary) {
		cut--
	}
	if cut == 0 {
		var err error
		if page, err = wholeGroup(boundary); err != nil {
			return nil, nil, err
		}
	} else {
		page = page[:cut]
	}
	next := createdAt(page[len(page)-1])
	return page, &next, nil
}
