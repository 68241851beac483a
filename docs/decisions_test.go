package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// decisionRef is a decision number as code cites it (D11, D65).
var decisionRef = regexp.MustCompile(`\bD([0-9]{1,2})\b`)

// TestEveryCitedDecisionHasAnEntry keeps the promise of decisions.md: every
// Dnn that a Go file of the project cites resolves to an entry there, so a
// reader never follows a number to a document outside the repository.
func TestEveryCitedDecisionHasAnEntry(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("decisions.md")
	if err != nil {
		t.Fatal(err)
	}
	cited := map[string]string{} // anchor -> a file citing it
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decisionRef.FindAllStringSubmatch(string(src), -1) {
			cited["d"+strings.TrimLeft(m[1], "0")] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) < 50 {
		t.Fatalf("found only %d decisions cited in Go files: the walk is wrong", len(cited))
	}
	for anchor, file := range cited {
		if !strings.Contains(string(page), `<a id="`+anchor+`"></a>`) {
			t.Errorf("%s cites %s, which has no entry in docs/decisions.md", file, strings.ToUpper(anchor))
		}
	}
}
