package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	mclock "github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// journalOf decodes GET /_mock/requests.
func journalOf(t *testing.T, r rawResp) []JournalEntry {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var out struct {
		Requests []JournalEntry `json:"requests"`
	}
	require.NoError(t, json.Unmarshal(r.body, &out))
	return out.Requests
}

func TestTheJournalRecordsAPIRequestsButNotTheAdminAPI(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	rawDo(t, http.MethodGet, srv.URL+"/v1/agents?business_id="+acct.BusinessID, "", bearer(acct.APIKey)...)
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "")
	rawDo(t, http.MethodGet, srv.AdminURL+"/clock", "")
	rawDo(t, http.MethodGet, srv.URL+"/v1/nothing", "", bearer(acct.APIKey)...)

	rawDo(t, http.MethodGet, srv.AdminURL+"/nothing", "")

	all := journalOf(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests", ""))
	require.Len(t, all, 3, "the admin API is not journaled")
	assert.Equal(t, int64(1), all[0].Seq, "entries are numbered from 1")
	assert.Equal(t, "GET", all[0].Method)
	assert.Equal(t, "/api/v1/agents", all[0].Path)
	assert.Equal(t, "business_id="+acct.BusinessID, all[0].Query)
	assert.Equal(t, 200, all[0].Status)
	assert.Equal(t, acct.APIKey[:20], all[0].KeyPrefix)
	assert.NotEmpty(t, all[0].RequestID)
	assert.False(t, all[0].Time.IsZero())
	assert.Equal(t, 401, all[1].Status)
	assert.Empty(t, all[1].KeyPrefix)
	assert.Equal(t, "/api/v1/nothing", all[2].Path)
	assert.Equal(t, 404, all[2].Status, "unknown paths are journaled")

	byPath := journalOf(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/api/v1/num*", ""))
	require.Len(t, byPath, 1)
	assert.Equal(t, "/api/v1/numbers", byPath[0].Path)
	assert.Empty(t, journalOf(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?method=post", "")))
	assert.Len(t, srv.Requests(nil), 3)
}

func TestTheJournalLongPolls(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	got := make(chan rawResp, 1)
	// After the newest entry of now: a poll without ?after= waits for what
	// comes after the newest entry when it arrives, which may be after the
	// requests below on a loaded machine.
	after := srv.LatestRequestSeq()
	go func() {
		got <- rawDo(t, http.MethodGet, fmt.Sprintf("%s/requests?path=/api/v1/numbers&after=%d&wait=30s", srv.AdminURL, after), "")
	}()
	rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	entries := journalOf(t, <-got)
	require.Len(t, entries, 1, "the poll answers as soon as a request matches")
	assert.Equal(t, "/api/v1/numbers", entries[0].Path)

	// Nothing matches: the poll ends with an empty list when the wait is over.
	assert.Empty(t, journalOf(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/api/v1/voices&wait=10ms", "")))

	for _, bad := range []string{"soon", "-1s", "61s"} {
		r := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?wait="+bad, "")
		assert.Equal(t, http.StatusBadRequest, r.status, bad)
		assert.Equal(t, "invalid_request", r.code(), bad)
	}

	// The Go helper waits on a context.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan []JournalEntry, 1)
	go func() {
		done <- srv.WaitRequests(ctx, func(e *JournalEntry) bool { return e.Path == "/api/v1/voices" })
	}()
	rawDo(t, http.MethodGet, srv.URL+"/v1/voices", "", bearer(acct.APIKey)...)
	assert.Len(t, <-done, 1)
	short, cancelShort := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelShort()
	assert.Empty(t, srv.WaitRequests(short, func(e *JournalEntry) bool { return e.Method == "DELETE" }))
}

func TestTheJournalIsARingBuffer(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithJournalSize(3))
	for range 5 {
		rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	}
	entries := journalOf(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests", ""))
	require.Len(t, entries, 3)
	assert.Equal(t, []int64{3, 4, 5}, []int64{entries[0].Seq, entries[1].Seq, entries[2].Seq}, "the oldest fall out")
}

func TestAdminAccounts(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/accounts", `{"business_name":"Raw Co","email":"Owner@Raw.example","scopes":["agents:read"]}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	var acct Account
	require.NoError(t, json.Unmarshal(r.body, &acct))
	assert.Regexp(t, `^voiceagent_live_[0-9A-Za-z]{40}$`, acct.APIKey)
	for _, v := range []string{acct.BusinessID, acct.AgentID, acct.UserID, acct.Session, acct.PhoneNumber} {
		assert.NotEmpty(t, v)
	}
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status)
	assert.Equal(t, http.StatusForbidden, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...).status)

	r = rawDo(t, http.MethodPost, srv.AdminURL+"/accounts", "")
	require.Equal(t, http.StatusCreated, r.status, "every field has a default")
	var def Account
	require.NoError(t, json.Unmarshal(r.body, &def))
	assert.NotEqual(t, acct.BusinessID, def.BusinessID)
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(def.APIKey)...).status, "every scope by default")

	for _, body := range []string{`{"scopes":["agents:fly"]}`, `{"color":"red"}`, `{"email":"not an email"}`, `{`} {
		r = rawDo(t, http.MethodPost, srv.AdminURL+"/accounts", body)
		assert.Equal(t, http.StatusBadRequest, r.status, body)
		assert.Equal(t, "invalid_request", r.code(), body)
	}
	_, err := srv.NewAccount(AccountOptions{Scopes: []voiceagent.Scope{"nope"}})
	assert.Error(t, err)
}

func TestAdminClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 6, 5, 12, 0, 0, 0, time.UTC)
	srv := Start(t, WithStartTime(start))
	var clock struct {
		Now     time.Time `json:"now"`
		Pending int       `json:"pending"`
	}
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/clock", "")
	require.NoError(t, json.Unmarshal(r.body, &clock))
	assert.Equal(t, start, clock.Now)
	assert.Zero(t, clock.Pending)

	var ranAt time.Time
	srv.platform.DefineTask("test", func(_ *platform.Tx, now time.Time, _ mclock.Task) { ranAt = now })
	srv.platform.Schedule("", mclock.Task{At: start.Add(time.Minute), Kind: "test"})
	require.NoError(t, json.Unmarshal(rawDo(t, http.MethodGet, srv.AdminURL+"/clock", "").body, &clock))
	assert.Equal(t, 1, clock.Pending)

	r = rawDo(t, http.MethodPost, srv.AdminURL+"/clock/advance", `{"seconds": 90.5}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.NoError(t, json.Unmarshal(r.body, &clock))
	assert.Equal(t, start.Add(90500*time.Millisecond), clock.Now)
	assert.Zero(t, clock.Pending)
	tx := srv.platform.ReadTx()
	assert.Equal(t, start.Add(time.Minute), ranAt, "the task ran at its own time")
	tx.End()
	assert.Equal(t, clock.Now, srv.Now())

	for _, body := range []string{`{"seconds": -1}`, `{}`, `{"minutes": 1}`, `{"seconds": 34560001}`} {
		r = rawDo(t, http.MethodPost, srv.AdminURL+"/clock/advance", body)
		assert.Equal(t, http.StatusBadRequest, r.status, body)
	}
}

func TestAdminOutbox(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	send := func(to, body string) {
		tx := srv.platform.WriteTx()
		defer tx.End()
		srv.platform.SendOutbox(tx, srv.Now(), store.OutboxMessage{Channel: "email", To: to, From: "noreply@voiceagent.example", Subject: "Code", Body: body, OTPCode: "123456"})
	}
	var out struct {
		Messages []OutboxMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(rawDo(t, http.MethodGet, srv.AdminURL+"/outbox", "").body, &out))
	assert.Empty(t, out.Messages)
	assert.NotNil(t, out.Messages, "an empty list, not null")

	send("a@x.example", "first")
	send("b@x.example", "second")
	require.NoError(t, json.Unmarshal(rawDo(t, http.MethodGet, srv.AdminURL+"/outbox?to=A@X.example", "").body, &out))
	require.Len(t, out.Messages, 1, "addresses match case-insensitively")
	m := out.Messages[0]
	assert.Equal(t, "first", m.Body)
	assert.Equal(t, "123456", m.OTPCode)
	assert.Equal(t, admin.ChannelEmail, m.Channel)
	assert.NotEmpty(t, m.ID)

	got := make(chan rawResp, 1)
	go func() { got <- rawDo(t, http.MethodGet, srv.AdminURL+"/outbox?to=c@x.example&wait=30s", "") }()
	send("c@x.example", "third")
	require.NoError(t, json.Unmarshal((<-got).body, &out))
	require.Len(t, out.Messages, 1)
	assert.Equal(t, "third", out.Messages[0].Body)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	found, ok := srv.WaitOutbox(ctx, "", func(m OutboxMessage) bool { return m.Body == "second" })
	assert.True(t, ok)
	assert.Equal(t, "b@x.example", found.To)
}

func TestAdminResetDropsAllState(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	srv.AddFault(FaultRule{Path: "/v1/voices", Status: 500})
	srv.platform.DefineTask("test", func(*platform.Tx, time.Time, mclock.Task) {})
	srv.platform.Schedule("", mclock.Task{At: srv.Now().Add(time.Hour), Kind: "test"})

	r := rawDo(t, http.MethodPost, srv.AdminURL+"/reset", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, true, r.json["reset"])

	assert.Equal(t, http.StatusUnauthorized, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status, "the old key is gone")
	assert.Len(t, srv.Requests(nil), 1, "only the request after the reset")
	assert.Empty(t, srv.httpapi.FaultSet.List())
	assert.Empty(t, srv.Outbox(""))
	var clock struct{ Pending int }
	require.NoError(t, json.Unmarshal(rawDo(t, http.MethodGet, srv.AdminURL+"/clock", "").body, &clock))
	assert.Zero(t, clock.Pending)

	// The server is fully usable again.
	fresh, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/voices", "", bearer(fresh.APIKey)...).status)
}
