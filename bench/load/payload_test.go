package main

import (
	"encoding/json"
	"testing"
)

func TestPayloadsAreValidJSON(t *testing.T) {
	t.Parallel()
	var one struct {
		From    string   `json:"from"`
		To      []string `json:"to"`
		Subject string   `json:"subject"`
		HTML    string   `json:"html"`
	}
	if err := json.Unmarshal(appendEmail(nil, 42, defaultRecipientDomain), &one); err != nil {
		t.Fatalf("single email: %v", err)
	}
	if one.From != "Bench <bench@bench.example>" || len(one.To) != 1 || one.To[0] != "user42@sink.example" || one.Subject != "Benchmark email 42" {
		t.Fatalf("single email decoded as %+v", one)
	}
	var batch []map[string]any
	if err := json.Unmarshal(appendBatch(nil, 1000, maxBatch, nil), &batch); err != nil {
		t.Fatalf("batch: %v", err)
	}
	if len(batch) != maxBatch || batch[99]["to"].([]any)[0] != "user1099@sink.example" {
		t.Fatalf("batch has %d items, last %v", len(batch), batch[len(batch)-1])
	}
}
