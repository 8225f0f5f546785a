package webhookstest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/voiceagent/voiceagent-go/webhooks"
	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

// BenchmarkCheckAllTypes measures one full run of the checks (27 event
// types and the 9 other checks: 37 requests) against the SDK's Handler on
// loopback.
func BenchmarkCheckAllTypes(b *testing.B) {
	secret, err := webhooks.NewSecret()
	if err != nil {
		b.Fatal(err)
	}
	h, err := webhooks.NewHandler(webhooks.WithSecrets(secret), webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	h.OnAny(func(context.Context, *webhooks.Event) error { return nil })
	srv := httptest.NewServer(h)
	defer srv.Close()
	b.ReportAllocs()
	for b.Loop() {
		r, err := webhookstest.Check(context.Background(), srv.URL, secret, webhookstest.WithHTTPClient(srv.Client()))
		if err != nil || !r.Passed {
			b.Fatal(err, r)
		}
	}
}
