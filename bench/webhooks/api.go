package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
)

// allEventTypes is every webhook event type of section 6.
var allEventTypes = []string{"email.sent", "email.delivered", "email.bounced", "email.complained", "email.opened",
	"email.clicked", "email.failed", "email.suppressed", "email.delivery_delayed"}

// createWebhooks registers n webhooks subscribed to every event, webhook i
// at receiverURL/hook/i with a secret, so every delivery is signed as in
// production (D48). It returns their ids in order.
func createWebhooks(ctx context.Context, api *apiclient.Client, key, receiverURL string, n int) ([]string, error) {
	ids := make([]string, n)
	for i := range n {
		var out struct {
			ID string `json:"id"`
		}
		body := map[string]any{"url": receiverURL + hookPath(i), "events": allEventTypes,
			"secret": fmt.Sprintf("bench-secret-%02d-0123456789", i)}
		if err := api.Call(ctx, http.MethodPost, "/v1/product/webhooks", key, body, &out); err != nil {
			return nil, fmt.Errorf("register webhook %d: %w", i, err)
		}
		ids[i] = out.ID
	}
	return ids, nil
}

// setWebhookStatus is PATCH /webhooks/{id}: active or paused. Making a
// webhook active again queues what waited while it was paused (D50).
func setWebhookStatus(ctx context.Context, api *apiclient.Client, key, id, status string) error {
	return api.Call(ctx, http.MethodPatch, "/v1/product/webhooks/"+id, key, map[string]string{"status": status}, nil)
}
