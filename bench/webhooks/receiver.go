package main

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// arrival is one webhook request as the receiver saw it.
type arrival struct {
	Hook    int // index of the webhook, from the request path /hook/N
	EventID string
	EmailID string
	Type    string
	Created time.Time // the payload's createdAt: when the event was recorded
	Arrived time.Time
}

// receiver is the customer's endpoint: HTTPS with a certificate from the
// benchmark's CA, answering 200 at once and noting every arrival.
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	arrivals []arrival
	bad      atomic.Int64 // requests whose body was not a payload
	count    atomic.Int64
}

// startReceiver serves HTTPS on 127.0.0.1 with cert; http2 lets it speak
// HTTP/2 (the service's client asks for it), else HTTP/1.1 only.
func startReceiver(cert tls.Certificate, http2 bool) *receiver {
	r := &receiver{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.EnableHTTP2 = http2
	r.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	r.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	r.srv.StartTLS()
	return r
}

// URL is the receiver's base, https://127.0.0.1:port.
func (r *receiver) URL() string { return r.srv.URL }

// Close stops the server.
func (r *receiver) Close() { r.srv.Close() }

// payload is the part of D47's body the benchmark reads.
type payload struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"createdAt"`
	Data      struct {
		EmailID string `json:"emailId"`
	} `json:"data"`
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	arrived := time.Now()
	hook, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/hook/"))
	body, rerr := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var p payload
	if err != nil || rerr != nil || json.Unmarshal(body, &p) != nil || p.ID == "" {
		r.bad.Add(1)
		w.WriteHeader(http.StatusOK) // a retry would not help; counted as bad instead
		return
	}
	created, err := time.Parse(time.RFC3339Nano, p.CreatedAt)
	if err != nil {
		r.bad.Add(1)
		w.WriteHeader(http.StatusOK)
		return
	}
	r.mu.Lock()
	r.arrivals = append(r.arrivals, arrival{Hook: hook, EventID: p.ID, EmailID: p.Data.EmailID, Type: p.Type, Created: created, Arrived: arrived})
	r.mu.Unlock()
	r.count.Add(1)
	w.WriteHeader(http.StatusOK)
}

// Count is the payloads received so far, duplicates included.
func (r *receiver) Count() int64 { return r.count.Load() }

// Bad is the requests that carried no readable payload.
func (r *receiver) Bad() int64 { return r.bad.Load() }

// Arrivals copies what arrived so far.
func (r *receiver) Arrivals() []arrival {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]arrival(nil), r.arrivals...)
}

// hookPath is where webhook i points.
func hookPath(i int) string { return fmt.Sprintf("/hook/%d", i) }
