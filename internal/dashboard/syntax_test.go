package dashboard

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Every script parses as an ES module. The pages have no build step, so
// nothing else would notice a syntax error before a browser does; Node
// (which CI installs for the Standard Webhooks test) checks it here.
func TestScriptsParse(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node not found and CI=true: %v", err)
		}
		t.Skip("node not found; CI runs this test")
	}
	err = fs.WalkDir(files, "assets/js", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".js") {
			return err
		}
		src, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		cmd := exec.Command(node, "--input-type=module", "--check")
		cmd.Stdin = bytes.NewReader(src)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v\n%s", name, err, out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
