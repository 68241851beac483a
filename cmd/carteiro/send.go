package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Settings of `carteiro send`, read when the flags are not given.
const (
	envAPIURL = "CARTEIRO_API_URL"
	envAPIKey = "CARTEIRO_API_KEY"
	// defaultAPIURL is the server `carteiro serve` starts on this machine
	// (CARTEIRO_HTTP_ADDR's default :8080).
	defaultAPIURL = "http://127.0.0.1:8080"
	// sendTimeout bounds the whole request: accepting an email is one
	// database write, so a server that takes longer is not answering.
	sendTimeout = 30 * time.Second
	// maxAnswer bounds how much of the server's answer is read.
	maxAnswer = 1 << 20
)

// stringList is a repeatable flag (--to a --to b).
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// sendCommand is `carteiro send`: one POST /v1/product/emails to a running
// server, with an API key, so the email goes through exactly the checks,
// limits and records of any API client (unlike the org and key commands,
// which are the operator's and work on the database). The key comes from
// CARTEIRO_API_KEY rather than a flag where possible: a flag shows in the
// process list.
func sendCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var to stringList
	from := fs.String("from", "", "sender address, such as \"Acme <hi@acme.example>\"")
	fs.Var(&to, "to", "recipient address (repeat for several)")
	subject := fs.String("subject", "", "subject")
	htmlFile := fs.String("html", "", "file holding the HTML body (- for standard input)")
	text := fs.String("text", "", "plain-text body")
	sandbox := fs.Bool("test", false, "sandbox: simulate the sending, deliver nothing (isSandbox)")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the server's JSON answer")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	switch {
	case fs.NArg() != 0:
		return usageError{"send: unexpected argument " + fs.Arg(0)}
	case *from == "" || len(to) == 0 || *subject == "":
		return usageError{"send: --from, --to and --subject are required"}
	case *htmlFile == "" && *text == "":
		return usageError{"send: give --html FILE, --text TEXT or both"}
	}
	apiURL, key, err := api.resolve("send", lookupEnv)
	if err != nil {
		return err
	}

	body := map[string]any{"from": *from, "to": []string(to), "subject": *subject}
	if *htmlFile != "" {
		html, err := readBodyFile(*htmlFile, stdin)
		if err != nil {
			return err
		}
		body["html"] = html
	}
	if *text != "" {
		body["text"] = *text
	}
	if *sandbox {
		body["isSandbox"] = true
	}
	answer, err := postJSON(ctx, apiURL+"/v1/product/emails", key, body)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if *asJSON {
		_, err := stdout.Write(append(bytes.TrimSpace(answer), '\n'))
		return err
	}
	var accepted struct{ ID, Status string }
	if err := json.Unmarshal(answer, &accepted); err != nil {
		return fmt.Errorf("send: the server's answer is not JSON: %w", err)
	}
	fmt.Fprintf(stdout, "email %s %s\n", accepted.ID, accepted.Status)
	return nil
}

// readBodyFile reads --html's file, or standard input for "-".
func readBodyFile(name string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("send: read --html: %w", err)
	}
	return string(b), nil
}

// postJSON POSTs body with the key and returns a 2xx answer's body. Any
// other answer becomes an error naming the status and, from the error
// envelope (D9), its code and message.
func postJSON(ctx context.Context, url, key string, body any) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "carteiro-cli/"+version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if resp.StatusCode/100 == 2 {
		return answer, nil
	}
	var envelope struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(answer, &envelope) != nil || envelope.Error.Code == "" {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	msg := fmt.Sprintf("HTTP %d %s: %s", resp.StatusCode, envelope.Error.Code, envelope.Error.Message)
	if len(envelope.Error.Details) > 0 {
		details, _ := json.Marshal(envelope.Error.Details)
		msg += " " + string(details)
	}
	return nil, errors.New(msg)
}
