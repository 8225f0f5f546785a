package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// viewsBenchServer is a server without rate limits and an account with n
// communication runs (a call and a text touch each), n queued governed
// updates and a finished call, made through the API.
func viewsBenchServer(b *testing.B, n int) (*Server, *Account, string) {
	b.Helper()
	s := New(WithStartTime(afternoonET), WithRateLimits(false))
	b.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	post := func(path, body string, header ...string) map[string]any {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+acct.APIKey)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code >= 300 {
			b.Fatal(path, w.Code, w.Body.String())
		}
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return out
	}
	for i := range n {
		post("/api/v1/communication-runs", fmt.Sprintf(`{"business_id":%q,"external_ref":"bench-%d","metadata":{"batch":%d},"touches":[`+
			`{"touch_id":"t1","channel":"call","message":"Hello","context":{"plan":"pro"},"target":{"phone":"+1555%07d","name":"Ann"},"scheduled_at":"2030-01-01T00:00:00Z"},`+
			`{"touch_id":"t2","channel":"sms","message":"Hi","sms_category":"transactional","target":{"phone":"+1555%07d"},"scheduled_at":"2030-01-02T00:00:00Z"}]}`,
			acct.BusinessID, i, i, i, i), "Idempotency-Key", fmt.Sprint("bench-run-", i))
		post("/api/v1/governed-updates", fmt.Sprintf(`{"intent":"agent.patch","target":{"agent_id":%q},"payload":{"name":"Queued %d"},`+
			`"idempotency_key":"bench-gov-%d","queue_for_approval":true,"reason":"bench","actor":{"type":"agent","id":"a1"}}`, acct.AgentID, i, i))
	}
	call := post("/api/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+15551230001","name":"Jane","context":"bench"}`, acct.AgentID))
	s.Advance(time.Hour)
	return s, acct, call["id"].(string)
}

// BenchmarkViewReads reads the responses whose records are shown by struct
// views: a page of 100 communication runs, a page of 100 governed updates,
// and a call by id.
func BenchmarkViewReads(b *testing.B) {
	s, acct, callID := viewsBenchServer(b, 100)
	for _, path := range []string{
		"/api/v1/communication-runs?limit=100",
		"/api/v1/governed-updates?limit=100",
		"/api/v1/calls?id=" + callID,
	} {
		b.Run(strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], "/api/v1/"), func(b *testing.B) {
			benchGet(b, s, acct.APIKey, path)
		})
	}
}
