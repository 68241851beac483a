package main

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
)

// outcome is what one API call did.
type outcome struct {
	accepted   int    // emails the server took
	itemErrors int    // batch items answered {"ok":false}
	status     string // HTTP status, or "transport" when no answer came
}

// sender makes one API call carrying the emails numbered from first.
type sender func(ctx context.Context, first int64) outcome

// emailsPerCall is how many emails one call of the scenario carries.
func emailsPerCall(o options) int {
	if o.scenario == "accept" || o.scenario == "smtp" {
		return 1
	}
	return o.batch
}

// singleSender posts one email per call to POST /emails.
func singleSender(api *apiClient) sender {
	return func(ctx context.Context, n int64) outcome {
		status, _, err := api.post(ctx, "/v1/product/emails", appendEmail(make([]byte, 0, 256), n, recipientDomain(api.recipientDomains, n)))
		if err != nil {
			return outcome{status: "transport"}
		}
		o := outcome{status: strconv.Itoa(status)}
		if status == http.StatusAccepted {
			o.accepted = 1
		}
		return o
	}
}

var okItem = []byte(`"ok":true`)

// batchSender posts size emails per call to POST /emails/batch.
func batchSender(api *apiClient, size int) sender {
	return func(ctx context.Context, first int64) outcome { return postBatch(ctx, api, first, size) }
}

// postBatch posts size emails to POST /emails/batch and counts the items
// answered ok. It counts by substring rather than decoding the whole
// answer, to leave the machine's CPU to the server.
func postBatch(ctx context.Context, api *apiClient, first int64, size int) outcome {
	status, body, err := api.post(ctx, "/v1/product/emails/batch", appendBatch(make([]byte, 0, 160*size), first, size, api.recipientDomains))
	if err != nil {
		return outcome{status: "transport"}
	}
	o := outcome{status: strconv.Itoa(status)}
	if status == http.StatusAccepted {
		o.accepted = bytes.Count(body, okItem)
		o.itemErrors = size - o.accepted
	}
	return o
}
