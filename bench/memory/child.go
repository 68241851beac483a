package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// carteiro is the server under test, a child process.
type carteiro struct {
	cmd     *exec.Cmd
	URL     string
	LiveKey string
	exited  chan struct{}
	waitErr error
}

// buildBinary compiles ./cmd/carteiro of the module the program runs in.
func buildBinary(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run inside the carteiro module (go run ./bench/memory), or pass -binary")
	}
	bin := filepath.Join(dir, "carteiro")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/carteiro")
	build.Dir = filepath.Dir(gomod)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/carteiro: %w", err)
	}
	return bin, nil
}

// serverEnv runs an API node with no limits in the way and nothing that
// reaches outside 127.0.0.1.
func serverEnv(dbURL, inflight string) []string {
	settings := map[string]string{
		"CARTEIRO_HTTP_ADDR":       "127.0.0.1:0",
		"CARTEIRO_DATABASE_URL":    dbURL,
		"CARTEIRO_DNS_SERVER":      "127.0.0.1:9", // discard: nothing answers
		"CARTEIRO_INBOUND_ADDR":    "",
		"CARTEIRO_SUBMISSION_ADDR": "",
		"CARTEIRO_RATE_LIMIT_KEY":  "1000000,1000000",
		"CARTEIRO_RATE_LIMIT_IP":   "1000000,1000000",
		"CARTEIRO_WARMUP":          "off",
		"CARTEIRO_LOG_FORMAT":      "json",
	}
	if inflight != "" {
		settings["CARTEIRO_MAX_INFLIGHT_BYTES"] = inflight
	}
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

// startCarteiro runs bin serve --role api and waits for its first-start
// live key (stdout) and listen address (stderr's JSON "listening" line).
func startCarteiro(bin, dir string, env []string) (*carteiro, error) {
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--role", "api")
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
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &carteiro{cmd: cmd, exited: make(chan struct{})}
	keys, addrs := make(chan string, 1), make(chan string, 1)
	copied := make(chan struct{}, 2)
	go func() { scanUntil(stdout, logFile, liveKeyIn, keys); copied <- struct{}{} }()
	go func() { scanUntil(stderr, logFile, listenAddrIn, addrs); copied <- struct{}{} }()
	go func() {
		<-copied
		<-copied
		c.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(c.exited)
	}()
	deadline := time.After(60 * time.Second)
	for c.LiveKey == "" || c.URL == "" {
		select {
		case k := <-keys:
			c.LiveKey = k
		case a := <-addrs:
			c.URL = "http://" + a
		case <-c.exited:
			return nil, fmt.Errorf("carteiro exited before it was ready: %v", c.waitErr)
		case <-deadline:
			_ = c.Stop()
			return nil, errors.New("carteiro not ready within 60s")
		}
	}
	return c, nil
}

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

func liveKeyIn(line string) string {
	f := strings.Fields(line)
	if len(f) == 2 && f[0] == "live" && strings.HasPrefix(f[1], "svc_live_") {
		return f[1]
	}
	return ""
}

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

func (c *carteiro) Pid() int { return c.cmd.Process.Pid }

// Stop sends SIGTERM and waits up to 45 s, then kills the child.
func (c *carteiro) Stop() error {
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

// memoryStatus reads VmRSS and VmHWM (bytes) from /proc/PID/status.
func memoryStatus(pid int) (rss, hwm int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%d/status: odd %s line %q", pid, key, value)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	return rss, hwm, nil
}
