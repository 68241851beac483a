package webhook_test

import (
	"io"
	"log"
	"net/http"
	"os"

	"github.com/carteiro/carteiro/sdk/go/carteiro/webhook"
)

func ExampleConstructEvent() {
	secret := os.Getenv("CARTEIRO_WEBHOOK_SECRET")
	http.HandleFunc("POST /hooks", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // the raw body
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		event, err := webhook.ConstructEvent(body, r.Header, secret)
		if err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		log.Println(event.ID, event.Type, event.Data["emailId"]) // deduplicate on event.ID
		w.WriteHeader(http.StatusAccepted)
	})
}
