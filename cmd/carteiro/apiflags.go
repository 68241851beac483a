package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/carteiro/carteiro/sdk/go/carteiro"
)

// apiFlags are --api and --key of the commands that talk to a running
// server's API (send, emails tail, webhook listen), with their defaults
// from CARTEIRO_API_URL and CARTEIRO_API_KEY. The key is best given in the
// environment: a flag shows in the process list.
type apiFlags struct {
	url, key *string
}

func addAPIFlags(fs *flag.FlagSet) apiFlags {
	return apiFlags{
		url: fs.String("api", "", "server URL (default $"+envAPIURL+", else "+defaultAPIURL+")"),
		key: fs.String("key", "", "API key (default $"+envAPIKey+")"),
	}
}

// resolve fills the flags from the environment and the default; a missing
// key is a usage error naming the command.
func (a apiFlags) resolve(command string, lookupEnv env) (url, key string, err error) {
	url, key = *a.url, *a.key
	if key == "" {
		key, _ = lookupEnv(envAPIKey)
	}
	if key == "" {
		return "", "", usageError{command + ": no API key: set " + envAPIKey + " or pass --key"}
	}
	if url == "" {
		url, _ = lookupEnv(envAPIURL)
	}
	if url == "" {
		url = defaultAPIURL
	}
	return strings.TrimRight(url, "/"), key, nil
}

// client returns a Go SDK client for the flags.
func (a apiFlags) client(command string, lookupEnv env) (*sdk.Client, error) {
	url, key, err := a.resolve(command, lookupEnv)
	if err != nil {
		return nil, err
	}
	return sdk.NewClient(key, sdk.WithBaseURL(url), sdk.WithUserAgent("carteiro-cli/"+version),
		sdk.WithHTTPClient(&http.Client{Timeout: requestTimeout})), nil
}

// describeAPIError words an API error as the commands print it: the
// status, the envelope's code and message, its details and the request id
// (D9, D11), without the SDK's own prefix.
func describeAPIError(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	if apiErr.Code == "" {
		return fmt.Errorf("HTTP %d", apiErr.Status)
	}
	msg := fmt.Sprintf("HTTP %d %s: %s", apiErr.Status, apiErr.Code, apiErr.Message)
	if len(apiErr.Details) > 0 {
		details, _ := json.Marshal(apiErr.Details)
		msg += " " + string(details)
	}
	if apiErr.RequestID != "" {
		msg += " (request " + apiErr.RequestID + ")"
	}
	return errors.New(msg)
}
