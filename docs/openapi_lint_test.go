package docs

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// sdkDir holds the TypeScript client, whose pinned devDependencies include
// Redocly CLI (package-lock.json); .ci/run installs them with npm ci.
const sdkDir = "../sdk/typescript"

// TestOpenAPIPassesRedoclyRecommended lints openapi.yaml with Redocly CLI's
// recommended rules (sdk/typescript/redocly.yaml) and wants no error and no
// warning: issue 29 asks for a description that generators and linters take
// as it is. The two deliberate exceptions are listed, with their reasons, in
// sdk/typescript/.redocly.lint-ignore.yaml.
func TestOpenAPIPassesRedoclyRecommended(t *testing.T) {
	t.Parallel()
	redocly := filepath.Join(sdkDir, "node_modules", ".bin", "redocly")
	if _, err := os.Stat(redocly); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redocly CLI is not installed and CI=true, so this test fails rather than skips: run `npm ci` in sdk/typescript: %v", err)
		}
		t.Skipf("Redocly CLI not installed (npm ci in sdk/typescript): %v", err)
	}
	cmd := exec.Command("node", "node_modules/.bin/redocly", "lint", "--format=json", "../../docs/openapi.yaml")
	cmd.Dir = sdkDir
	// Redocly CLI reports usage to its makers and checks for updates unless
	// told not to; tests reach nothing but loopback.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var report struct {
		Totals struct {
			Errors   int `json:"errors"`
			Warnings int `json:"warnings"`
		} `json:"totals"`
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("redocly lint gave no JSON report (run error %v): %v\nstdout: %s\nstderr: %s", runErr, err, stdout.String(), stderr.String())
	}
	for _, p := range report.Problems {
		at := ""
		if len(p.Location) > 0 {
			at = p.Location[0].Pointer
		}
		t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, at, p.Message)
	}
	if report.Totals.Errors != 0 || report.Totals.Warnings != 0 || runErr != nil {
		t.Errorf("redocly lint: %d errors, %d warnings (exit: %v)", report.Totals.Errors, report.Totals.Warnings, runErr)
	}
}
