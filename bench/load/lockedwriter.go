package main

import (
	"io"
	"sync"
)

// lockedWriter lets the server's stdout and stderr share one log file
// without interleaving inside a write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
