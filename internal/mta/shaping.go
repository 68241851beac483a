package mta

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Shaping defaults (D80).
const (
	DefaultDestinationConnections    = 10
	DefaultTransactionsPerConnection = 100
)

// Shaping is how traffic to one destination is shaped (D80). Zero fields
// mean the defaults of DirectOptions.
type Shaping struct {
	// Connections bounds the connections open at once to the destination.
	Connections int `yaml:"connections"`
	// MessagesPerMinute bounds the transactions started per minute; 0 is
	// no bound.
	MessagesPerMinute int `yaml:"messages_per_minute"`
	// TransactionsPerConnection retires a connection after that many
	// transactions.
	TransactionsPerConnection int `yaml:"transactions_per_connection"`
}

// or fills s's zero fields from def.
func (s Shaping) or(def Shaping) Shaping {
	if s.Connections <= 0 {
		s.Connections = def.Connections
	}
	if s.MessagesPerMinute <= 0 {
		s.MessagesPerMinute = def.MessagesPerMinute
	}
	if s.TransactionsPerConnection <= 0 {
		s.TransactionsPerConnection = def.TransactionsPerConnection
	}
	return s
}

// shapingFile is CARTEIRO_SHAPING_FILE's layout.
type shapingFile struct {
	Destinations map[string]Shaping `yaml:"destinations"`
}

// ParseShaping reads a shaping file (CARTEIRO_SHAPING_FILE): per
// destination key (the registered domain of the MX hosts, "google.com"),
// the limits that replace the defaults. Unknown keys and negative numbers
// are refused, so a typo does not silently leave a limit unset.
func ParseShaping(data []byte) (map[string]Shaping, error) {
	var file shapingFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty file
		return nil, fmt.Errorf("shaping file: %w", err)
	}
	out := make(map[string]Shaping, len(file.Destinations))
	for key, s := range file.Destinations {
		if s.Connections < 0 || s.MessagesPerMinute < 0 || s.TransactionsPerConnection < 0 {
			return nil, fmt.Errorf("shaping file: destination %q: limits must not be negative", key)
		}
		name := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(key), "."))
		if name == "" {
			return nil, errors.New("shaping file: a destination has an empty name")
		}
		out[name] = s
	}
	return out, nil
}
