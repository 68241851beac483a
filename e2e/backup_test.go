package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// carteiroCommand runs the built binary with a command line against the
// SQLite file at path and returns its exit code and output.
func carteiroCommand(t *testing.T, path string, args ...string) (int, string) {
	t.Helper()
	bin, err := buildBinary()
	testserver.Must(t, err == nil, "build carteiro: %v", err)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CARTEIRO_DATABASE_URL=sqlite:"+path, "CARTEIRO_LOG_FORMAT=json")
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

// blackhole is an SMTP relay that accepts connections and never answers,
// so every email accepted stays queued or in flight until it is closed.
type blackhole struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newBlackhole(t *testing.T) *blackhole {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testserver.Must(t, err == nil, "listen: %v", err)
	b := &blackhole{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
		}
	}()
	return b
}

func (b *blackhole) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.conns {
		_ = c.Close()
	}
}

// TestD79BackupWhileAcceptingRestoresAndDelivers backs a SQLite database up
// with `carteiro backup` while four clients accept email as fast as the
// server takes it, checks the copy (mode 0600, integrity_check, every email
// whose 202 came before the backup started), refuses to restore over the
// running service, restores it with `carteiro restore` to a new file, and
// starts a server on it with the same CARTEIRO_SECRET_KEY: it serves those
// emails and delivers the queued ones, DKIM-signed with the sealed key.
//
// Not parallel: it needs 150 accepts within waitFor's minute and the restored
// server's deliveries within 5 minutes, a rate that other tests' load on the
// CPU took away (seen: 150 accepts not reached in 60 s beside three other tests).
func TestD79BackupWhileAcceptingRestoresAndDelivers(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "carteiro.db")
	secret := carteiro.RandomBase62(48)
	hole := newBlackhole(t)
	ts := testserver.StartServer(t, testserver.SQLite, map[string]string{
		"CARTEIRO_DATABASE_URL": "sqlite:" + live, "CARTEIRO_SECRET_KEY": secret,
		"CARTEIRO_DELIVERY": "relay", "CARTEIRO_RELAY_URL": "smtp+plain://" + hole.ln.Addr().String(),
		"CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true", "CARTEIRO_SMTP_TIMEOUT": "5m",
	})
	t.Cleanup(hole.close) // before the server's shutdown, which waits for attempts
	d := createDomain(t, ts, ts.LiveKey, "shop.example")
	publish(ts, d)
	testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")

	type accepted struct {
		id string
		at time.Time
	}
	var mu sync.Mutex
	var got []accepted
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body, _ := json.Marshal(map[string]any{"from": "shop@shop.example", "to": fmt.Sprintf("c%d-%d@y.example", w, i),
					"subject": "backup", "text": "kept"})
				req, _ := http.NewRequest("POST", ts.URL+"/v1/product/emails", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+ts.LiveKey)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				var r sendResult
				_ = json.NewDecoder(res.Body).Decode(&r)
				_ = res.Body.Close()
				if res.StatusCode == http.StatusAccepted {
					mu.Lock()
					got = append(got, accepted{r.ID, time.Now()})
					mu.Unlock()
				}
			}
		}()
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	waitFor(t, func() bool { return count() >= 150 })
	copyFile := filepath.Join(dir, "copy.db")
	started := time.Now()
	code, out := carteiroCommand(t, live, "backup", "--to", copyFile)
	waitFor(t, func() bool { return count() >= 300 })
	close(stop)
	wg.Wait()
	testserver.Must(t, code == 0, "backup: %d %s", code, out)

	st, err := os.Stat(copyFile)
	testserver.Must(t, err == nil && st.Mode().Perm() == 0o600, "copy %v mode %v", err, st.Mode())
	before := 0
	func() {
		cp, err := store.Open(t.Context(), "sqlite:"+copyFile)
		testserver.Must(t, err == nil, "open copy: %v", err)
		defer cp.Close()
		testserver.Must(t, cp.IntegrityCheck(t.Context()) == nil, "integrity_check: %v", cp.IntegrityCheck(t.Context()))
		for _, a := range got {
			if a.at.Before(started) {
				before++
				_, err := cp.EmailByID(t.Context(), a.id)
				testserver.Must(t, err == nil, "email %s accepted before the backup started is not in the copy: %v", a.id, err)
			}
		}
	}()
	testserver.Must(t, before >= 150, "only %d emails before the backup", before)

	code, out = carteiroCommand(t, live, "restore", "--from", copyFile)
	testserver.Must(t, code != 0 && strings.Contains(out, "stop the service"), "restore over a running service: %d %s", code, out)
	restored := filepath.Join(t.TempDir(), "restored.db")
	code, out = carteiroCommand(t, restored, "restore", "--from", copyFile)
	testserver.Must(t, code == 0, "restore: %d %s", code, out)

	smtp := testutil.NewSMTPServer(t)
	ts2 := testserver.StartServer(t, testserver.SQLite, map[string]string{
		"CARTEIRO_DATABASE_URL": "sqlite:" + restored, "CARTEIRO_SECRET_KEY": secret,
		"CARTEIRO_DELIVERY": "relay", "CARTEIRO_RELAY_URL": "smtp+plain://" + smtp.Addr(),
		"CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true", "CARTEIRO_SMTP_TIMEOUT": "5s",
	})
	ts2.DNS = ts.DNS // the DKIM key published for the first server
	// One deadline for them all, not a minute each: the restored server
	// works through every email in the copy (a thousand under a loaded CI,
	// at a few per second with -race), not in the order they were accepted,
	// and an attempt the first server cut at its job timeout waits for its
	// retry behind the rest. Seen in CI: an email still queued after a
	// minute, delivered in the next.
	deadline := time.Now().Add(5 * time.Minute)
	for _, a := range got {
		if !a.at.Before(started) {
			continue
		}
		e := getEmail(t, ts2, ts.LiveKey, a.id)
		for e.Status != "delivered" && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			e = getEmail(t, ts2, ts.LiveKey, a.id)
		}
		testserver.Must(t, e.Status == "delivered", "restored email %s stayed %s", a.id, e.Status)
		testserver.Must(t, e.Subject != nil && *e.Subject == "backup", "restored email %+v", e)
	}
	msgs := smtp.Messages()
	testserver.Must(t, len(msgs) >= before, "%d messages delivered, want at least %d", len(msgs), before)
	verifyDKIM(t, ts2, msgs[0].Data)
}
