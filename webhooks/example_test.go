package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/voiceagent/voiceagent-go/webhooks"
)

// A secret as the platform issues it when a subscription is created.
const exampleSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// signedRequest builds what the platform would send.
func signedRequest(body string) *http.Request {
	h, err := webhooks.SignHeaders([]string{exampleSecret}, "msg_2b6f0c1e", time.Now(), []byte(body))
	if err != nil {
		log.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/webhooks/voiceagent", bytes.NewBufferString(body))
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set(webhooks.HeaderEvent, "lead.created")
	req.Header.Set(webhooks.HeaderAttempt, "1")
	return req
}

const exampleBody = `{"id":"evt_1","event":"lead.created","business_id":"b1","timestamp":"2025-01-02T03:04:05Z","data":{"id":"lead_1","name":"Ada Lovelace"}}`

func ExampleVerify() {
	req := signedRequest(exampleBody)

	// In a receiver: read the raw body, then verify it before anything else.
	body, _ := io.ReadAll(req.Body)
	err := webhooks.Verify(body, req.Header, []string{exampleSecret})
	fmt.Println("valid:", err == nil)

	// A body changed in transit fails.
	err = webhooks.Verify(append(body, ' '), req.Header, []string{exampleSecret})
	fmt.Println(errors.Is(err, webhooks.ErrInvalidSignature))
	// Output:
	// valid: true
	// true
}

func ExampleConstructEvent() {
	req := signedRequest(exampleBody)
	body, _ := io.ReadAll(req.Body)

	ev, err := webhooks.ConstructEvent(body, req.Header, exampleSecret)
	if err != nil {
		fmt.Println("rejected:", err)
		return
	}
	var lead struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := ev.DecodeData(&lead); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ev.Type, ev.ID, lead.Name)
	// Output: lead.created evt_1 Ada Lovelace
}

func ExampleNewHandler() {
	// While rotating, pass the new secret and the old one.
	h, err := webhooks.NewHandler(webhooks.WithSecrets(exampleSecret),
		webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		log.Fatal(err)
	}
	h.On(webhooks.EventLeadCreated, func(ctx context.Context, e *webhooks.Event) error {
		d, _ := webhooks.DeliveryFromContext(ctx)
		fmt.Println("new lead in", e.BusinessID, "attempt", d.Attempt)
		return nil // an error answers 500 and the platform retries
	})
	// In a program: http.Handle("/webhooks/voiceagent", h)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, signedRequest(exampleBody))
	fmt.Println(rec.Code)

	// The retry of a processed delivery is acknowledged without running the
	// handler again.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, signedRequest(exampleBody))
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// new lead in b1 attempt 1
	// 200
	// 200 {"status":"duplicate"}
}

func ExampleEvent_Lead() {
	req := signedRequest(exampleBody)
	body, _ := io.ReadAll(req.Body)
	ev, err := webhooks.ConstructEvent(body, req.Header, exampleSecret)
	if err != nil {
		log.Fatal(err)
	}
	// The typed accessors decode the data of their family of events.
	if lead, err := ev.Lead(); err == nil {
		fmt.Println(lead.ID, lead.Name)
	}
	_, err = ev.Call()
	fmt.Println(errors.Is(err, webhooks.ErrEventFamily))
	// Output:
	// lead_1 Ada Lovelace
	// true
}

// Sample data of an event type, from a business's records where given:
// what the mock server sends for POST /_mock/events without data.
func ExampleSampleData() {
	raw := webhooks.SampleData(webhooks.EventSMSReceived, webhooks.SampleRecords{PhoneNumber: "+15550001111"})
	var m webhooks.MessageData
	if err := json.Unmarshal(raw, &m); err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Direction, m.Status, m.To)
	// Output: inbound received +15550001111
}
