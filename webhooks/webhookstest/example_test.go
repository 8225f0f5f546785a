package webhookstest_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"

	"github.com/voiceagent/voiceagent-go/webhooks"
	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

// A receiver built on the SDK's Handler passes every check. In a test,
// webhookstest.CheckHandler(t, h, secret) does the same and fails t for
// each failed check.
func ExampleCheck() {
	secret, _ := webhooks.NewSecret()
	h, err := webhooks.NewHandler(webhooks.WithSecrets(secret), webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	report, err := webhookstest.Check(context.Background(), srv.URL, secret,
		webhookstest.WithEvents(webhooks.EventLeadCreated, webhooks.EventCallCompleted))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range report.Checks {
		fmt.Println(c.ID, c.Event, c.Passed)
	}
	fmt.Println("passed:", report.Passed)
	// Output:
	// accepts_valid lead.created true
	// accepts_valid call.completed true
	// rejects_tampered_body  true
	// rejects_wrong_secret  true
	// rejects_missing_signature  true
	// rejects_stale_timestamp  true
	// rejects_future_timestamp  true
	// accepts_rotated_secret  true
	// accepts_redelivery  true
	// responds_in_time  true
	// accepts_unknown_event  true
	// passed: true
}
