package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneForm is the one form of a time the API and the admin API show: RFC
// 3339 in UTC with nine fractional digits.
var oneForm = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`)

// timeMember reports whether a member's name says it holds a time.
func timeMember(name string) bool {
	return strings.HasSuffix(name, "_at") || strings.HasSuffix(name, "At") ||
		name == "timestamp" || name == "now" || name == "base_time" || name == "taken_at"
}

// timesIn calls f with every string member of v whose name says it is a
// time, with its JSON pointer, at any depth.
func timesIn(v any, at string, f func(at, s string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if s, ok := c.(string); ok && timeMember(k) {
				f(at+"/"+k, s)
				continue
			}
			timesIn(c, at+"/"+k, f)
		}
	case []any:
		for i, c := range v {
			timesIn(c, fmt.Sprintf("%s/%d", at, i), f)
		}
	}
}

// TestTimesHaveOneFormSoStringOrderIsTimeOrder makes many records of
// several kinds in one simulated instant (the clock does not move, so each
// table moves its created_at on by a nanosecond per tie, starting on a
// whole second) and reads them through raw HTTP, the API and the admin
// API: every time has nine fractional digits, so the strings of a list
// sort as their times do. A user's text that looks like a time stays as
// given.
func TestTimesHaveOneFormSoStringOrderIsTimeOrder(t *testing.T) {
	srv, acct := startWithAccount(t, WithRateLimits(false))
	key := bearer(acct.APIKey)
	const lookalike = "2026-03-10T16:00:00Z"
	for i := range 12 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls",
			fmt.Sprintf(`{"agent_id":%q,"to":"+1555123%04d","context":%q}`, acct.AgentID, i, lookalike), key...)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		r = rawDo(t, http.MethodPost, srv.AdminURL+"/inbound-sms",
			fmt.Sprintf(`{"to":%q,"from":"+1555777%04d","body":%q}`, acct.PhoneNumber, i, lookalike))
		require.Less(t, r.status, 300, "%s", r.body)
	}

	read := func(url string, header ...string) any {
		t.Helper()
		r := rawDo(t, http.MethodGet, url, "", header...)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", url, r.body)
		var v any
		require.NoError(t, json.Unmarshal(r.body, &v), url)
		return v
	}
	// ordered checks one list: the items' created_at (or other member)
	// strings, newest first, sort as their times do.
	ordered := func(name string, items any, member string) {
		t.Helper()
		list, _ := items.([]any)
		require.GreaterOrEqual(t, len(list), 12, "%s: the records made above", name)
		var prev string
		var prevT time.Time
		wholeSecond := false
		for i, it := range list {
			s, _ := it.(map[string]any)[member].(string)
			require.Regexp(t, oneForm, s, "%s[%d].%s", name, i, member)
			at, err := time.Parse(time.RFC3339Nano, s)
			require.NoError(t, err)
			wholeSecond = wholeSecond || at.Nanosecond() == 0
			if i > 0 {
				assert.Equal(t, prevT.Compare(at), strings.Compare(prev, s),
					"%s: %s and %s sort one way as strings and another as times", name, prev, s)
				assert.True(t, at.Before(prevT), "%s: %s is not older than %s (newest first, one per nanosecond)", name, s, prev)
			}
			prev, prevT = s, at
		}
		assert.True(t, wholeSecond, "%s: the first record of the instant is on a whole second", name)
	}
	calls := read(srv.URL+"/v1/calls?limit=100", key...).(map[string]any)
	ordered("GET /v1/calls", calls["calls"], "created_at")
	leads := read(srv.URL+"/v1/leads?limit=100", key...).(map[string]any)
	ordered("GET /v1/leads", leads["leads"], "created_at")
	events := read(srv.URL+"/v1/events?limit=100", key...).(map[string]any)
	ordered("GET /v1/events", events["events"], "created_at")
	allCalls := read(srv.AdminURL + "/calls?business_id=" + acct.BusinessID).(map[string]any)
	ordered("GET /_mock/calls", allCalls["calls"], "created_at")

	// Every time any of these documents shows has the one form: the lists
	// above, a call and its texts, the journal, the outbox, the deliveries,
	// the clock, and a snapshot of every record of the tenant.
	call := calls["calls"].([]any)[0].(map[string]any)
	docs := map[string]any{
		"GET /v1/calls": calls, "GET /v1/leads": leads, "GET /v1/events": events, "GET /_mock/calls": allCalls,
		"GET /v1/calls?id=":       read(srv.URL+"/v1/calls?id="+call["id"].(string), key...),
		"GET /v1/sms/messages":    read(srv.URL+"/v1/sms/messages?limit=100", key...),
		"GET /v1/agents":          read(srv.URL+"/v1/agents", key...),
		"GET /_mock/requests":     read(srv.AdminURL + "/requests?limit=1000"),
		"GET /_mock/outbox":       read(srv.AdminURL + "/outbox"),
		"GET /_mock/deliveries":   read(srv.AdminURL + "/deliveries"),
		"GET /_mock/clock":        read(srv.AdminURL + "/clock?business_id=" + acct.BusinessID),
		"GET /_mock/snapshot":     read(srv.AdminURL + "/snapshot?business_id=" + acct.BusinessID),
		"GET /_mock/snapshot (*)": read(srv.AdminURL + "/snapshot"),
	}
	seen := 0
	for name, doc := range docs {
		timesIn(doc, "", func(at, s string) {
			seen++
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				return // a member named like a time that holds something else
			}
			assert.Regexp(t, oneForm, s, "%s %s", name, at)
		})
	}
	assert.Greater(t, seen, 200, "times checked")

	// User data that looks like a time is shown as given.
	var thread struct {
		Messages []struct {
			Body string `json:"body"`
		} `json:"messages"`
	}
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/sms/messages?limit=100", "", key...)
	require.NoError(t, json.Unmarshal(r.body, &thread))
	require.NotEmpty(t, thread.Messages)
	for _, m := range thread.Messages {
		assert.Equal(t, lookalike, m.Body)
	}
	detail := docs["GET /v1/calls?id="].(map[string]any)
	assert.Equal(t, lookalike, detail["context"], "a call's context as given")
}
