package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

// JournalEntry.Fault says what every kind of request fault did, in the
// Go journal and in GET /_mock/requests alike: status (a made-up answer,
// the 503 included), latency (the handler's answer, delayed), dropped
// (before and after the handler) and truncated.
func TestTheJournalSaysWhatEachFaultDid(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	cases := []struct {
		rule FaultRule
		want admin.FaultKind
	}{
		{FaultRule{Status: http.StatusServiceUnavailable}, admin.FaultStatus},
		{FaultRule{Status: http.StatusTooManyRequests, LatencyMS: 1}, admin.FaultStatus},
		{FaultRule{LatencyMS: 1}, admin.FaultLatency},
		{FaultRule{Drop: true}, admin.FaultDropped},
		{FaultRule{Drop: true, After: true}, admin.FaultDropped},
		{FaultRule{Truncate: true}, admin.FaultTruncated},
	}
	for _, c := range cases {
		c.rule.Path, c.rule.Times = "/v1/numbers", 1
		rule, err := acct.AddFault(c.rule)
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/numbers", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+acct.APIKey)
		// A fresh connection each: a GET lost on a reused one is sent again.
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		if resp, err := fresh.Do(req); err == nil { // a dropped or cut answer fails
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		got := srv.Requests(func(e *JournalEntry) bool { return e.FaultID == rule.ID })
		require.Len(t, got, 1, "rule %+v", c.rule)
		assert.Equal(t, c.want, got[0].Fault, "rule %+v", c.rule)

		r := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?business_id="+acct.BusinessID+"&path=/v1/numbers", "")
		require.Equal(t, http.StatusOK, r.status, r.body)
		var page struct {
			Requests []struct {
				FaultID string `json:"fault_id"`
				Fault   string `json:"fault"`
			} `json:"requests"`
		}
		require.NoError(t, json.Unmarshal(r.body, &page))
		var faults []string
		for _, e := range page.Requests {
			if e.FaultID == rule.ID {
				faults = append(faults, e.Fault)
			}
		}
		assert.Equal(t, []string{string(c.want)}, faults, "GET /_mock/requests, rule %+v", c.rule)
	}
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	require.Equal(t, http.StatusOK, r.status)
	e := srv.Requests(nil)
	assert.Empty(t, e[len(e)-1].Fault, "no rule acted")
	assert.Empty(t, e[len(e)-1].FaultID)
}
