package submission

import (
	"errors"
	"io"
)

// The pieces readBounded reads into start small, as most messages are
// (a few KB), and double up to 1 MB.
const (
	firstChunk = 16 << 10
	maxChunk   = 1 << 20
)

// errOverLimit is readBounded's answer to a message longer than its limit.
var errOverLimit = errors.New("message over the size limit")

// readBounded reads r to its end and returns what it read in one slice, or
// errOverLimit as soon as it has read more than limit bytes (the rest is
// left unread), or the error that ended the read. It reads into chunks that
// double up to 1 MB and joins them once at the end, so a message over the
// limit costs the limit's worth of chunks and is never joined: io.ReadAll,
// used before, allocated twice the limit before the refusal (16 MB for an
// 8 MB limit, TestDataOverTheCapAllocatesAboutTheCap).
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	r = io.LimitReader(r, limit+1)
	var (
		chunks [][]byte
		total  int64
		err    error
		size   = firstChunk
	)
	for err == nil {
		chunk := make([]byte, size)
		size = min(2*size, maxChunk)
		var n int
		n, err = io.ReadFull(r, chunk)
		if n > 0 {
			chunks = append(chunks, chunk[:n])
			total += int64(n)
		}
	}
	if total > limit {
		return nil, errOverLimit
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil // let the collector take each piece once copied
	}
	return out, nil
}
