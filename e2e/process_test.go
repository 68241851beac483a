package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildBinary compiles cmd/carteiro once per test run.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "carteiro-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "carteiro")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/carteiro/carteiro/cmd/carteiro").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// process is the real carteiro binary running as a child process.
type process struct {
	cmd     *exec.Cmd
	addr    string
	liveKey string
	done    chan struct{}
}

// startProcess runs `carteiro serve` with env and waits until it listens.
func startProcess(t *testing.T, env map[string]string) *process {
	t.Helper()
	return startRole(t, env, "all")
}

// startRole runs `carteiro serve --role role` with env and waits until it
// has started: listening, unless it is a worker, which does not listen (D1).
func startRole(t *testing.T, env map[string]string, role string) *process {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatalf("build carteiro: %v", err)
	}
	cmd := exec.Command(bin, "serve", "--role", role)
	cmd.Env = append(os.Environ(), "CARTEIRO_LOG_FORMAT=json")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start carteiro: %v", err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	listening := make(chan string, 2)
	keys := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "live" {
				keys <- f[1]
			}
		}
		close(keys)
	}()
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				switch {
				case line.Msg == "listening":
					listening <- line.Addr
				case line.Msg == "carteiro started" && role == "worker":
					listening <- ""
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	select {
	case p.addr = <-listening:
	case <-p.done:
		t.Fatal("carteiro exited before listening")
	case <-time.After(30 * time.Second):
		t.Fatal("carteiro did not start listening in 30 s")
	}
	select {
	case p.liveKey = <-keys:
	case <-time.After(200 * time.Millisecond):
	}
	return p
}

// kill sends SIGKILL: no shutdown, no flush, as a power cut would.
func (p *process) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// terminate sends SIGTERM and waits for the graceful shutdown.
func (p *process) terminate(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		t.Fatal("carteiro did not stop within 40 s of SIGTERM")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("carteiro exited with %d after SIGTERM", code)
	}
}
