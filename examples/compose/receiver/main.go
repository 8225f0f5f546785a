// Command receiver is the webhook receiver of the docker compose recipe
// (examples/compose): it answers every delivery the mock server posts to
// /hooks with 204, prints it as a line of JSON, and lists what it got at
// GET /received, so a test on the host can check that a delivery crossed
// from one container to the other. It uses the standard library only and
// listens on RECEIVER_ADDR (default 0.0.0.0:8090).
package main

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

// delivery is one request the receiver got.
type delivery struct {
	Method  string          `json:"method"`
	Path    string          `json:"path"`
	Headers http.Header     `json:"headers"`
	Body    json.RawMessage `json:"body"`
}

// receiver keeps the deliveries it got, newest last.
type receiver struct {
	mu  sync.Mutex
	got []delivery
}

// ServeHTTP records a POST to /hooks and lists the deliveries at GET
// /received.
func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/hooks":
		raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !json.Valid(raw) {
			http.Error(w, "a JSON body, please", http.StatusBadRequest)
			return
		}
		d := delivery{Method: r.Method, Path: r.URL.Path, Headers: r.Header, Body: raw}
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		rc.mu.Unlock()
		line, _ := json.Marshal(d)
		log.Printf("delivery %s", line)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet && r.URL.Path == "/received":
		rc.mu.Lock()
		got := append([]delivery{}, rc.got...)
		rc.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"deliveries": got})
	case r.Method == http.MethodGet && r.URL.Path == "/health":
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func main() {
	addr := os.Getenv("RECEIVER_ADDR")
	if addr == "" {
		addr = "0.0.0.0:8090"
	}
	srv := &http.Server{Addr: addr, Handler: &receiver{}, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("webhook receiver listening on %s: POST /hooks, GET /received", addr)
	log.Fatal(srv.ListenAndServe())
}
