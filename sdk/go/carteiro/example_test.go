package carteiro_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/carteiro/carteiro/sdk/go/carteiro"
)

func ExampleEmailsService_Send() {
	client := carteiro.NewClient(os.Getenv("CARTEIRO_API_KEY"), carteiro.WithBaseURL("https://mail.example.com"))
	sent, err := client.Emails.Send(context.Background(), &carteiro.SendEmailRequest{
		From:    "Acme <hi@acme.example>",
		To:      []string{"ana@example.com"},
		Subject: "Your order",
		HTML:    "<p>Thanks, Ana</p>",
		// Optional: the client makes one up; your own makes your retries safe.
		IdempotencyKey: "order-42",
	})
	var apiErr *carteiro.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == carteiro.CodeValidation:
		log.Printf("field %s: %s", apiErr.Field, apiErr.Reason)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(sent.ID, sent.Status)
	}
}

func ExampleEmailsService_List() {
	client := carteiro.NewClient(os.Getenv("CARTEIRO_API_KEY"))
	for email, err := range client.Emails.List(context.Background(), &carteiro.EmailListParams{Status: "bounced"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(email.ID, email.To, email.LastError)
	}
}
