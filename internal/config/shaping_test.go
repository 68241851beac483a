package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/mta"
)

// D80: the destination settings, and a shaping file checked at startup.
func TestDestinationSettings(t *testing.T) {
	t.Parallel()
	c, err := Load(env(nil))
	if err != nil || c.DestinationConnections != 10 || c.Shaping != nil {
		t.Fatalf("defaults: %d connections, shaping %v, err %v", c.DestinationConnections, c.Shaping, err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "shaping.yaml")
	if err := os.WriteFile(good, []byte("destinations:\n  google.com:\n    connections: 20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(env(map[string]string{"CARTEIRO_SHAPING_FILE": good, "CARTEIRO_DESTINATION_CONNECTIONS": "4"}))
	if err != nil || c.DestinationConnections != 4 || c.Shaping["google.com"] != (mta.Shaping{Connections: 20}) {
		t.Fatalf("got %d connections, shaping %v, err %v", c.DestinationConnections, c.Shaping, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("destinations:\n  google.com:\n    conections: 20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, value := range map[string]string{
		"CARTEIRO_SHAPING_FILE":            bad,
		"CARTEIRO_DESTINATION_CONNECTIONS": "0",
	} {
		if _, err := Load(env(map[string]string{name: value})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: error %v, want one naming the setting", name, value, err)
		}
	}
	if _, err := Load(env(map[string]string{"CARTEIRO_SHAPING_FILE": filepath.Join(dir, "missing.yaml")})); err == nil {
		t.Error("a missing shaping file was accepted")
	}
}
