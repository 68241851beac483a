package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestSecondServerOnOneSQLiteFileRefused starts a second `carteiro serve`
// on the SQLite file a first one serves: it must refuse to start, saying
// why, and the first must go on serving (D1: several processes need
// PostgreSQL). The lock is what lets a restart hand the jobs a killed
// process left running back to the queue (TestCrashDuringBroadcast).
func TestSecondServerOnOneSQLiteFileRefused(t *testing.T) {
	t.Parallel()
	rig := newCrashRig(t, testserver.SQLite, "lock.example")
	bin, err := buildBinary()
	testserver.Must(t, err == nil, "build: %v", err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = os.Environ()
	for k, v := range rig.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	testserver.Must(t, ctx.Err() == nil, "the second server was still running after 30 s: %s", out)
	testserver.Must(t, err != nil && cmd.ProcessState.ExitCode() != 0, "the second server exited with 0: %s", out)
	testserver.Must(t, strings.Contains(string(out), "another carteiro process is serving this SQLite database"),
		"the second server did not say why it stopped: %s", out)
	status, body, err := rig.call("GET", "/v1/product/domains", nil)
	testserver.Must(t, err == nil && status == 200 && strings.Contains(string(body), "lock.example"),
		"the first server after the refusal: %d %s %v", status, body, err)
	rig.p.terminate(t)
	// Once the first has stopped, the file is free again.
	rig.restart(t)
	status, _, err = rig.call("GET", "/v1/product/domains", nil)
	testserver.Must(t, err == nil && status == 200, "a server after the first stopped: %d %v", status, err)
	rig.p.terminate(t)
}
