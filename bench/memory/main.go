// Command memory measures what large attachments cost the server in memory
// (D60: handling a request holds at most about 3x its body). It builds (or
// takes, with -binary) the real carteiro binary, starts it as an API node
// on a fresh SQLite database, sends -clients concurrent POST /emails each
// with one -size byte attachment (sandbox sends, so no domain is needed
// and nothing is delivered), and reports the child's peak resident memory
// (VmHWM from /proc) before and after.
//
// Everything listens on 127.0.0.1; the server's DNS points at a closed
// local port, so no name is looked up outside the machine.
//
//	go run ./bench/memory                      # this checkout
//	go run ./bench/memory -binary /path/to/carteiro
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/carteiro/carteiro/bench/internal/child"
	"github.com/carteiro/carteiro/bench/internal/machine"
)

func main() {
	binary := flag.String("binary", "", "carteiro binary to measure (default: build ./cmd/carteiro)")
	clients := flag.Int("clients", 12, "concurrent POST /emails")
	size := flag.Int("size", 25_000_000, "attachment size in bytes, before Base64")
	inflight := flag.String("max-inflight", "", "CARTEIRO_MAX_INFLIGHT_BYTES for the server (default: its own)")
	flag.Parse()
	if err := run(*binary, *clients, *size, *inflight); err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}

func run(binary string, clients, size int, inflight string) error {
	dir, err := os.MkdirTemp("", "carteiro-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if binary == "" {
		if binary, err = child.Build(context.Background(), dir, "memory"); err != nil {
			return err
		}
	}
	env := serverEnv("sqlite:"+filepath.Join(dir, "carteiro.db"), inflight)
	c, err := child.Start(binary, dir, "api", env, "")
	if err != nil {
		return err
	}
	defer func() { _ = c.Stop() }()

	_, idle, err := machine.MemoryStatus(c.Pid())
	if err != nil {
		return err
	}
	body, err := emailWithAttachment(size)
	if err != nil {
		return err
	}
	// a second view of the peak, VmRSS every 10 ms
	peak := machine.StartRSSSampler(c.Pid(), 10*time.Millisecond)
	start := time.Now()
	statuses := sendAll(c, body, clients)
	elapsed := time.Since(start)
	peakRSS, _ := peak.Stop()
	_, hwm, err := machine.MemoryStatus(c.Pid())
	if err != nil {
		return err
	}
	fmt.Printf("binary:        %s\n", binary)
	fmt.Printf("requests:      %d concurrent POST /emails, %d-byte attachment, %d-byte bodies\n", clients, size, len(body))
	fmt.Printf("answers:       %v in %s\n", statuses, elapsed.Round(time.Millisecond))
	fmt.Printf("peak RSS idle: %d MiB (VmHWM before the requests)\n", idle>>20)
	fmt.Printf("peak RSS:      %d MiB (VmHWM after; sampled VmRSS max %d MiB)\n", hwm>>20, peakRSS>>20)
	fmt.Printf("per request:   %.1fx the body ((peak - idle) / clients / body)\n", float64(hwm-idle)/float64(clients)/float64(len(body)))
	return nil
}

// emailWithAttachment is one POST /emails body carrying size random-looking
// bytes as a Base64 attachment.
func emailWithAttachment(size int) ([]byte, error) {
	content := make([]byte, size)
	for i := range content {
		content[i] = byte(i*7 + i>>8)
	}
	return json.Marshal(map[string]any{
		"from": "bench@carteiro.test", "to": "someone@carteiro.test", "subject": "large attachment",
		"text": "see attached", "isSandbox": true,
		"attachments": []map[string]string{{"filename": "big.bin", "contentType": "application/octet-stream",
			"disposition": "attachment", "content": base64.StdEncoding.EncodeToString(content)}},
	})
}

// sendAll sends body from n clients at once and counts the answers by status.
func sendAll(c *child.Carteiro, body []byte, n int) map[int]int {
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status := post(c, body)
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses
}

func post(c *child.Carteiro, body []byte) int {
	req, err := http.NewRequest("POST", c.URL+"/v1/product/emails", bytes.NewReader(body))
	if err != nil {
		return -1
	}
	req.Header.Set("Authorization", "Bearer "+c.LiveKey)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
