package dashboard

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func dictionary(t *testing.T, lang string) map[string]string {
	t.Helper()
	raw, err := files.ReadFile("assets/i18n/" + lang + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]string
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s.json: %v", lang, err)
	}
	return d
}

// The three languages of D73 have the same messages, with the same
// placeholders, and every message the scripts ask for by a literal key
// exists.
func TestDictionariesMatchAndCoverTheScripts(t *testing.T) {
	en := dictionary(t, "en")
	placeholders := regexp.MustCompile(`\{(\w+)\}`)
	for _, lang := range []string{"pt-BR", "es"} {
		d := dictionary(t, lang)
		for k, v := range en {
			other, ok := d[k]
			if !ok {
				t.Errorf("%s.json lacks %q", lang, k)
				continue
			}
			if !slices.Equal(placeholders.FindAllString(v, -1), placeholders.FindAllString(other, -1)) {
				t.Errorf("%s.json %q has placeholders %v, en has %v", lang, k, placeholders.FindAllString(other, -1), placeholders.FindAllString(v, -1))
			}
		}
		for k := range d {
			if _, ok := en[k]; !ok {
				t.Errorf("%s.json has %q, which en.json lacks", lang, k)
			}
		}
	}
	call := regexp.MustCompile(`[^A-Za-z0-9_]t\('([A-Za-z0-9_.]+)'`)
	err := fs.WalkDir(files, "assets/js", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			key := m[1]
			if strings.HasSuffix(key, ".") {
				continue // a prefix completed at run time, with a fallback
			}
			if _, ok := en[key]; !ok {
				t.Errorf("%s asks for %q, which en.json lacks", name, key)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
