package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/uuid"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/loadgen"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// overheadFixture is an in-process mock server on loopback (rate limits
// off), an account with one lead, and an SDK client for it that shares
// one keep-alive http.Client with the hand-written calls. The client's own
// rate limits are off (they would pace the benchmark at 60 calls a
// minute); retries stay on (they cost nothing when nothing fails).
type overheadFixture struct {
	base, key, agentID, leadID string
	hc                         *http.Client
	sdk                        *client.Client
}

func newOverheadFixture(b *testing.B, baseURL string, acct *mockserver.Account, leadID string) *overheadFixture {
	hc := loadgen.NewClient(4)
	b.Cleanup(hc.CloseIdleConnections)
	return &overheadFixture{
		base: baseURL, key: acct.APIKey, agentID: acct.AgentID, leadID: leadID, hc: hc,
		sdk: client.New(acct.APIKey, voiceagent.WithBaseURL(baseURL), voiceagent.WithHTTPClient(hc),
			voiceagent.WithRateLimiting(false)),
	}
}

// handGetLead is GET /v1/leads?id= written by hand with net/http and
// encoding/json: the baseline of the SDK's Leads.Get.
func (f *overheadFixture) handGetLead(ctx context.Context) (*leads.Lead, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.base+"/v1/leads?id="+url.QueryEscape(f.leadID), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var l leads.Lead
	return &l, json.NewDecoder(resp.Body).Decode(&l)
}

// handCreateCall is POST /v1/calls written by hand, with an
// Idempotency-Key as the SDK sends: the baseline of Calls.Create.
func (f *overheadFixture) handCreateCall(ctx context.Context, p *calls.CreateParams) (*calls.Created, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/v1/calls", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", uuid.NewString())
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		data, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, data)
	}
	var c calls.Created
	return &c, json.NewDecoder(resp.Body).Decode(&c)
}

// BenchmarkSDKOverhead measures c.Leads.Get and c.Calls.Create next to
// the same requests written by hand with net/http and encoding/json (the
// target: the SDK within 1.3x of their time and allocations). "mock" runs
// against the in-process mock server, whose work is in both figures;
// "canned" against a handler that answers the mock's bytes at once, which
// leaves only the client's own cost. cpu-ns/op is the process's CPU per
// call (client and server), steadier than wall time on shared cores.
func BenchmarkSDKOverhead(b *testing.B) {
	srv := mockserver.Start(b, mockserver.WithRateLimits(false))
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	in, err := srv.InboundSMS(mockserver.InboundSMS{To: acct.PhoneNumber, From: "+15551230001", Body: "Hi, my name is Ada Lovelace, I need a quote"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	mock := newOverheadFixture(b, srv.URL, acct, in.LeadID)
	name := "Ada"
	params := &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230002", Name: &name}

	// The canned server answers what the mock answered, byte for byte.
	lead, err := mock.handGetLead(ctx)
	if err != nil {
		b.Fatal(err)
	}
	leadJSON, _ := json.Marshal(lead)
	created, err := mock.handCreateCall(ctx, params)
	if err != nil {
		b.Fatal(err)
	}
	createdJSON, _ := json.Marshal(created)
	canned := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(createdJSON)
			return
		}
		_, _ = w.Write(leadJSON)
	}))
	b.Cleanup(canned.Close)
	cannedFx := newOverheadFixture(b, canned.URL+"/api", acct, in.LeadID)

	for _, target := range []struct {
		name string
		f    *overheadFixture
	}{{"mock", mock}, {"canned", cannedFx}} {
		f := target.f
		for _, op := range []struct {
			name string
			call func() error
		}{
			{"Leads.Get/sdk", func() error { _, err := f.sdk.Leads.Get(ctx, f.leadID); return err }},
			{"Leads.Get/hand", func() error { _, err := f.handGetLead(ctx); return err }},
			{"Calls.Create/sdk", func() error { _, err := f.sdk.Calls.Create(ctx, params); return err }},
			{"Calls.Create/hand", func() error { _, err := f.handCreateCall(ctx, params); return err }},
		} {
			b.Run(target.name+"/"+op.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := loadgen.CPUTime()
				b.ResetTimer()
				for range b.N {
					if err := op.call(); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(loadgen.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
