// Package child runs the carteiro binary as a child process, the way an
// operator runs it, for benchmarks that measure the server's own CPU time
// and memory from /proc.
package child

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Carteiro is the service under test, running as a child process.
type Carteiro struct {
	cmd     *exec.Cmd
	URL     string // http://127.0.0.1:PORT
	LiveKey string
	LogPath string
	exited  chan struct{}
	waitErr error
}

// Build compiles ./cmd/carteiro of the module the benchmark runs in,
// stamped with its commit so the report can name it; command names the
// benchmark in the advice given outside the module.
func Build(ctx context.Context, dir, command string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run the benchmark inside the carteiro module (go run ./bench/%s), or pass -binary", command)
	}
	bin := filepath.Join(dir, "carteiro")
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=auto", "-o", bin, "./cmd/carteiro")
	build.Dir = filepath.Dir(gomod)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/carteiro: %w", err)
	}
	return bin, nil
}

// Env is this process's environment without any CARTEIRO_* variable (the
// caller's own settings must not leak into the run) plus settings.
func Env(settings map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CARTEIRO_") {
			env = append(env, kv)
		}
	}
	for k, v := range settings {
		env = append(env, k+"="+v)
	}
	return env
}

// Start runs bin serve and waits for its first-start live key (on
// stdout) and its listen address (the JSON "listening" log line on
// stderr). Both streams are appended whole to dir/server.log. A server
// started again on a database it made before prints no key: liveKey is
// the one it printed then.
func Start(bin, dir, role string, env []string, liveKey string) (*Carteiro, error) {
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	cmd := exec.Command(bin, "serve", "--role", role)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &Carteiro{cmd: cmd, LogPath: logPath, LiveKey: liveKey, exited: make(chan struct{})}
	keys := make(chan string, 1)
	addrs := make(chan string, 1)
	lw := &lockedWriter{w: logFile}
	copied := make(chan struct{}, 2)
	go func() { scanUntil(stdout, lw, liveKeyIn, keys); copied <- struct{}{} }()
	go func() { scanUntil(stderr, lw, listenAddrIn, addrs); copied <- struct{}{} }()
	go func() {
		// Wait must follow the pipes' last reads.
		<-copied
		<-copied
		c.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(c.exited)
	}()

	deadline := time.After(60 * time.Second) // migrations on a fresh database
	for c.LiveKey == "" || c.URL == "" {
		select {
		case k := <-keys:
			c.LiveKey = k
		case a := <-addrs:
			c.URL = "http://" + a
		case <-c.exited:
			return nil, fmt.Errorf("carteiro exited before it was ready (%v); see %s", c.waitErr, logPath)
		case <-deadline:
			c.Stop()
			return nil, fmt.Errorf("carteiro not ready within 60s (key found: %v, address found: %v); see %s", c.LiveKey != "", c.URL != "", logPath)
		}
	}
	return c, nil
}

// scanUntil copies r line by line to w, sends the first value match finds
// on found, and then copies the rest without looking.
func scanUntil(r io.Reader, w io.Writer, match func(string) string, found chan<- string) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		_, _ = io.WriteString(w, line)
		if v := match(line); v != "" {
			found <- v
			_, _ = io.Copy(w, br)
			return
		}
		if err != nil {
			return
		}
	}
}

// liveKeyIn finds the key in a first-start line like "  live  svc_live_...".
func liveKeyIn(line string) string {
	f := strings.Fields(line)
	if len(f) == 2 && f[0] == "live" && strings.HasPrefix(f[1], "svc_live_") {
		return f[1]
	}
	return ""
}

// listenAddrIn finds addr in the JSON log line {"msg":"listening","addr":...}.
func listenAddrIn(line string) string {
	var rec struct {
		Msg  string `json:"msg"`
		Addr string `json:"addr"`
	}
	if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "listening" {
		return ""
	}
	return rec.Addr
}

// Pid is the server's process id, for /proc sampling.
func (c *Carteiro) Pid() int { return c.cmd.Process.Pid }

// Stop sends SIGTERM, waits up to 45 s (the server's own grace is 30 s),
// then kills it. It reports how the process ended.
func (c *Carteiro) Stop() error {
	select {
	case <-c.exited:
		return c.waitErr
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
		return c.waitErr
	case <-time.After(45 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
		return errors.New("carteiro ignored SIGTERM for 45s and was killed")
	}
}

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
