package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// goPrograms returns the ```go blocks of a Markdown file that are whole
// programs (package main).
func goPrograms(t *testing.T, file string) []string {
	t.Helper()
	doc, err := os.ReadFile(file)
	testserver.Must(t, err == nil, "read %s: %v", file, err)
	var out []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(m[1], "package main") {
			out = append(out, m[1])
		}
	}
	return out
}

// goModule writes program into a new module that uses this checkout's
// sdk/go, and returns its directory.
func goModule(t *testing.T, program string) string {
	t.Helper()
	sdkDir, err := filepath.Abs("../sdk/go")
	testserver.Must(t, err == nil, "sdk dir: %v", err)
	dir := t.TempDir()
	mod := "module doc\n\ngo 1.26\n\nrequire github.com/carteiro/carteiro/sdk/go v0.0.0\n\nreplace github.com/carteiro/carteiro/sdk/go => " + sdkDir + "\n"
	testserver.Must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o600) == nil, "write go.mod")
	testserver.Must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o600) == nil, "write main.go")
	return dir
}

// TestSDKDocTour: the Go programs of docs/sdk.md build, and the tour runs
// against a real server and prints what the tour says: the records, the
// sandbox email's events, the error's field.
func TestSDKDocTour(t *testing.T) {
	t.Parallel()
	programs := goPrograms(t, "../docs/sdk.md")
	testserver.Must(t, len(programs) >= 2, "docs/sdk.md has %d Go programs, want the tour and the receiver", len(programs))
	bins := make([]string, len(programs))
	for i, p := range programs {
		dir := goModule(t, p)
		bins[i] = filepath.Join(dir, "prog")
		build := exec.Command("go", "build", "-o", bins[i], ".")
		build.Dir = dir
		build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := build.CombinedOutput()
		testserver.Must(t, err == nil, "program %d of docs/sdk.md does not build: %v\n%s", i+1, err, out)
	}

	rcv := testutil.NewTLSReceiver(t, nil)
	ts := webhookServer(t, testserver.SQLite, rcv)
	tour := exec.Command(bins[0])
	tour.Env = []string{"KEY=" + ts.LiveKey, "TEST_KEY=" + ts.TestKey, "CARTEIRO_API_URL=" + ts.URL, "HOOK_URL=" + rcv.URL() + "/hooks"}
	out, err := tour.CombinedOutput()
	testserver.Must(t, err == nil, "the tour of docs/sdk.md failed: %v\n%s", err, out)
	for _, want := range []string{"publish TXT _carteiro.example.com", "domain pending dkim fail", " queued\n", " delivered\n",
		"webhook ", "422 VALIDATION_ERROR to ", " [ana@example.net]\n", " delivered [delivered@example.net]\n"} {
		testserver.Must(t, strings.Contains(string(out), want), "the tour's output lacks %q:\n%s", want, out)
	}
}
