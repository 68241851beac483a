package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// process is one running worker; it serves one request at a time.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *tail
	// exited is closed once the process has been waited for.
	exited chan struct{}
	pid    int
	// dataLimit is the worker's RLIMIT_DATA.
	dataLimit int64
	// peakRSS is the worker's peak resident memory, set once it exited.
	peakRSS int64
}

var (
	// errOverTime: the worker was killed at its time bound.
	errOverTime = errors.New("render worker: killed at the time limit")
	// errDied: the worker ended in the middle of a request; under its
	// limits that is the kernel refusing it more memory.
	errDied = errors.New("render worker: died during a render")
)

// startProcess runs cmd as a worker and waits until it is ready.
func startProcess(ctx context.Context, cmd *exec.Cmd, h hello, readyWithin time.Duration) (*process, error) {
	cmd.Env = []string{envWorker + "=1"}
	cmd.Dir = "/"
	p := &process{cmd: cmd, stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.stdout = bufio.NewReaderSize(stdout, 64<<10)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("render worker: start: %w", err)
	}
	go func() {
		_ = cmd.Wait()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			p.peakRSS = ru.Maxrss << 10 // kB on Linux
		}
		close(p.exited)
	}()
	var r ready
	err = p.exchange(ctx, h, &r, 1<<20, readyWithin)
	if err == nil && r.Error != "" {
		err = errors.New(r.Error)
	}
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("render worker: not ready: %w (%s)", err, p.stderr.String())
	}
	p.pid, p.dataLimit = r.PID, r.DataLimit
	return p, nil
}

// exchange sends a frame and reads the answer, killing nothing: a time-out
// is errOverTime, the process ending is errDied.
func (p *process) exchange(ctx context.Context, in, out any, maxOut int, within time.Duration) error {
	done := make(chan error, 1)
	go func() {
		if err := writeFrame(p.stdin, in); err != nil {
			done <- err
			return
		}
		done <- readFrame(p.stdout, maxOut, out)
	}()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || p.hasExited(time.Second)) {
			return errDied
		}
		return err
	case <-timer.C:
		return errOverTime
	case <-ctx.Done():
		return ctx.Err()
	}
}

// hasExited reports whether the process ends within d (0: has ended).
func (p *process) hasExited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.exited:
			return true
		default:
			return false
		}
	}
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// kill ends the process and waits for it, so that its memory is given back
// before the slot takes a new one.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// stop closes stdin, which ends the worker's loop, and kills it if it has
// not ended in a while.
func (p *process) stop() {
	_ = p.stdin.Close()
	if !p.hasExited(2 * time.Second) {
		p.kill()
	}
}

// tail keeps the last max bytes written to it: a worker's stderr, for the
// log when it dies.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
