// Package cli is what every benchmark command does around its
// measurement: parse flags, stop on SIGINT or SIGTERM, print progress with
// the time on stderr, profile the CPU when asked.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

// Main parses the command line with parse and runs run until it returns or
// a signal cancels its context. A flag error exits 2, a failed run 1; both
// are printed prefixed with name.
func Main[O any](name string, parse func(args []string, stderr io.Writer) (O, error),
	run func(ctx context.Context, o O, stdout, stderr io.Writer) error) {
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		stop()
		os.Exit(1)
	}
}

// Progress returns a printf that writes one line to w, prefixed with the
// time of day, so a long run shows where it is.
func Progress(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(w, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// StartCPUProfile writes a CPU profile of this process to path (nothing
// when path is "") until the returned function is called.
func StartCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// WorkDir makes the run's temporary directory (database, logs). remove
// deletes it, unless keep asks to leave it for a look afterwards, which is
// said through progress.
func WorkDir(prefix string, keep bool, progress func(string, ...any)) (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, fmt.Errorf("work directory: %w", err)
	}
	if keep {
		progress("keeping %s", dir)
		return dir, func() {}, nil
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}
