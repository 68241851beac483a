package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// yamlToJSON converts one YAML document to compact JSON. It walks the node
// tree rather than decoding into maps so that keys keep the order in which the
// document was written (a reader of openapi.json sees openapi, info, servers,
// paths... as in the YAML, not sorted), and so that duplicate keys, which a map
// would silently merge, are refused.
func yamlToJSON(src []byte) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("parse YAML: %w", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("want exactly one YAML document")
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, errors.New("want exactly one YAML document")
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, root.Content[0]); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		return writeMapping(buf, n)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, item); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.AliasNode:
		return writeJSON(buf, n.Alias)
	case yaml.ScalarNode:
		return writeScalar(buf, n)
	default:
		return fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
	}
}

func writeMapping(buf *bytes.Buffer, n *yaml.Node) error {
	seen := make(map[string]bool, len(n.Content)/2)
	buf.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
			return fmt.Errorf("line %d: only plain scalar keys are supported", key.Line)
		}
		// A key such as 200 is an integer to YAML but always a string to JSON.
		if seen[key.Value] {
			return fmt.Errorf("line %d: duplicate key %q", key.Line, key.Value)
		}
		seen[key.Value] = true
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeString(buf, key.Value); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := writeJSON(buf, value); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!str", "!!timestamp", "!!binary":
		// Timestamps stay the text written: JSON has no date type, and
		// re-formatting 2025-01-02 as a full time would change the document.
		return writeString(buf, n.Value)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	buf.Write(out)
	return nil
}

// writeString writes s as a JSON string, leaving <, > and & as they are: the
// descriptions quote placeholders such as <domain>, and \u003c would make the
// served document harder to read for no gain outside HTML.
func writeString(buf *bytes.Buffer, s string) error {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	buf.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	return nil
}
