package agency_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// BenchmarkFingerprintFacts measures the fingerprint of a facts object that
// uses every part (what the mock computes per entry and per client).
func BenchmarkFingerprintFacts(b *testing.B) {
	f := fullFacts()
	b.ReportAllocs()
	for range b.N {
		if _, err := agency.Fingerprint(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnrollFiftyClients measures one enroll of a session with the
// maximum of 50 new clients, each provisioned (business, agent, number)
// and installed, through the SDK and the mock's HTTP pipeline.
func BenchmarkEnrollFiftyClients(b *testing.B) {
	w := newWorld(b)
	v := w.publish(offerDraft("Bench", agency.PackageConvert))
	_, owner := w.account("bench-owner@client.example")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		entries := make([]agency.Entry, 50)
		for j := range entries {
			entries[j] = agency.Entry{NewClient: &agency.NewClient{Name: "C", ExternalRef: fmt.Sprintf("b%d-%d", i, j)}, Facts: fullFacts()}
		}
		sess, appr := w.approvedSession(v.OfferVersionID, "bench-owner@client.example", owner, entries...)
		b.StartTimer()
		r, err := w.enroll(sess, appr)
		if err != nil || len(r.Clients) != 50 {
			b.Fatal(err)
		}
	}
}

// BenchmarkAgencyListPages measures a page of each agency list read (20
// offers with a version each, 20 enrollment sessions with their client
// receipts, 20 installations) through the mock's whole pipeline in-process:
// routing, auth, the handler's views, JSON, usage log and journal.
func BenchmarkAgencyListPages(b *testing.B) {
	w := newWorld(b, mockserver.WithRateLimits(false))
	for i := range 20 {
		w.installed(fmt.Sprintf("bench-%d", i))
	}
	for _, list := range []string{"offers", "enrollments", "installations"} {
		b.Run(list, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/api/v1/agency-"+list, nil)
			req.Header.Set("Authorization", "Bearer "+w.env.Account.APIKey)
			b.ReportAllocs()
			for range b.N {
				rec := httptest.NewRecorder()
				w.env.Server.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
