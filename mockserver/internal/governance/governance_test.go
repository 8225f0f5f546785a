package governance

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

func TestAuthorize(t *testing.T) {
	key := &domain.Actor{KeyID: "key", Scopes: []string{string(voiceagent.ScopeAll)}}
	session := &domain.Actor{SessionID: "session"}
	past, future := start.Add(-1).Format("2006-01-02T15:04:05.999999999Z07:00"), start.Add(1e9).Format("2006-01-02T15:04:05Z07:00")
	tests := []struct {
		name      string
		who       *domain.Actor
		intent    string
		authority map[string]any
		allowed   bool
		why       string // part of the reason it is not
		errPath   string // the path of a malformed authority
	}{
		{name: "no authority", who: key, intent: intentAgentPatch, why: "authority mode none cannot apply agent.patch directly"},
		{name: "agent asserted patch", who: key, intent: intentAgentPatch, authority: map[string]any{"mode": "agent_asserted"}, allowed: true},
		{name: "agent asserted sink", who: key, intent: intentTranscriptSink, authority: map[string]any{"mode": "agent_asserted"},
			why: "use one of human_confirmed, dashboard_session, system_policy or queue_for_approval"},
		{name: "system policy emergency address", who: key, intent: intentEmergencyAddress, authority: map[string]any{"mode": "system_policy"},
			why: "cannot apply phone.emergency_address.set directly"},
		{name: "human confirmed", who: key, intent: intentEmergencyAddress,
			authority: map[string]any{"mode": "human_confirmed", "confirmed_by": "ops", "confirmed_at": past}, allowed: true},
		{name: "human confirmed without who", who: key, intent: intentEmergencyAddress,
			authority: map[string]any{"mode": "human_confirmed", "confirmed_at": past}, errPath: "/authority/confirmed_by"},
		{name: "human confirmed without when", who: key, intent: intentEmergencyAddress,
			authority: map[string]any{"mode": "human_confirmed", "confirmed_by": "ops"}, errPath: "/authority/confirmed_at"},
		{name: "human confirmed in the future", who: key, intent: intentAgentPatch,
			authority: map[string]any{"mode": "human_confirmed", "confirmed_by": "ops", "confirmed_at": future}, errPath: "/authority/confirmed_at"},
		{name: "dashboard session with a key", who: key, intent: intentAgentPatch, authority: map[string]any{"mode": "dashboard_session"},
			why: "needs a request made with a dashboard session"},
		{name: "dashboard session", who: session, intent: intentEmergencyAddress, authority: map[string]any{"mode": "dashboard_session"}, allowed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allowed, why, err := authorize(start, tt.who, tt.intent, tt.authority)
			if tt.errPath != "" {
				e := apiError(t, err, voiceagent.CodeInvalidRequest)
				assert.Equal(t, []string{tt.errPath}, paths(e))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.allowed, allowed)
			if tt.allowed {
				assert.Empty(t, why)
			} else {
				assert.Contains(t, why, tt.why)
			}
		})
	}
}

// agentPatchBody is an agent.patch request of the account's agent.
func agentPatchBody(w *world, key, mode, payload string, extra string) string {
	return fmt.Sprintf(`{"intent": "agent.patch", "idempotency_key": %q, "target": {"agent_id": %q},
		"payload": %s, "authority": {"mode": %q}%s}`, key, w.acct.Agent.ID, payload, mode, extra)
}

func TestSubmitAgentPatch(t *testing.T) {
	tests := []struct {
		name    string
		body    func(w *world) string
		who     func(w *world) *domain.Actor
		failed  bool   // the voice provider fails
		outcome string // the submission's decision, "" for an error
		stored  string // the stored update's status
		renamed bool   // the agent's name is "Renamed" afterwards
		errCode string
		errPath []string
	}{
		{name: "applied", body: func(w *world) string { return agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed"}`, "") },
			outcome: governedApplied, stored: governedApplied, renamed: true},
		{name: "queued", body: func(w *world) string {
			return agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed"}`, `, "queue_for_approval": true`)
		}, outcome: governedPending, stored: governedPending},
		{name: "rejected without authority", body: func(w *world) string { return agentPatchBody(w, "k", "none", `{"name": "Renamed"}`, "") },
			outcome: governedRejected, stored: governedRejected},
		{name: "a field the agent update refuses", body: func(w *world) string { return agentPatchBody(w, "k", "agent_asserted", `{"name": ""}`, "") },
			errCode: voiceagent.CodeInvalidRequest, errPath: []string{"/payload/name"}},
		{name: "a field the agent update does not know", body: func(w *world) string {
			return agentPatchBody(w, "k", "agent_asserted", `{"colour": "red"}`, "")
		}, errCode: voiceagent.CodeInvalidRequest, errPath: []string{"/payload"}},
		{name: "an unknown catalog voice", body: func(w *world) string {
			return agentPatchBody(w, "k", "agent_asserted", `{"voice_catalog_id": "nobody"}`, "")
		}, errCode: voiceagent.CodeInvalidRequest, errPath: []string{"/payload/voice_catalog_id"}},
		{name: "the voice provider fails", body: func(w *world) string { return agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed"}`, "") },
			failed: true, errCode: voiceagent.CodeVendorError},
		{name: "a key without agents:write", body: func(w *world) string { return agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed"}`, "") },
			who: func(w *world) *domain.Actor { return w.withScopes(string(voiceagent.ScopeWorkspacesWrite)) }, errCode: voiceagent.CodeForbidden},
		{name: "another tenant's agent", body: func(w *world) string {
			return strings.Replace(agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed"}`, ""), w.acct.Agent.ID, w.other.Agent.ID, 1)
		}, errCode: voiceagent.CodeNotFound},
		{name: "another tenant's business", body: func(w *world) string {
			return agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed"}`, fmt.Sprintf(`, "business_id": %q`, w.other.Business.ID))
		}, errCode: voiceagent.CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.failed = tt.failed
			who := w.key
			if tt.who != nil {
				who = tt.who(w)
			}
			out, err := w.submit(who, request(t, tt.body(w)))
			if tt.errCode != "" {
				e := apiError(t, err, tt.errCode)
				if tt.errPath != nil {
					assert.Equal(t, tt.errPath, paths(e))
					assert.True(t, strings.HasPrefix(e.Message, "the agent.patch payload failed validation: "+tt.errPath[0]), e.Message)
				}
				w.p.Read(func(tx *platform.Tx) { assert.Zero(t, tx.GovernedUpdates.Len(), "a refused request stores nothing") })
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.outcome, out.Decision)
				require.NotNil(t, out.Update)
				assert.Equal(t, tt.stored, out.Update.Status)
				assert.Equal(t, w.acct.Business.ID, out.Update.Owner)
				assert.Contains(t, string(responseBody(out)), out.Update.ID)
			}
			assert.Equal(t, tt.renamed, w.agent().Name == "Renamed")
		})
	}
}

func TestSubmitResult(t *testing.T) {
	w := newWorld(t)
	out, err := w.submit(w.key, request(t, agentPatchBody(w, "k", "agent_asserted", `{"name": "Renamed", "metadata": {"tier": "gold"}}`, `, "ticket": "T-1"`)))
	require.NoError(t, err)
	res, ok := out.Update.Result.(agents.Updated)
	require.True(t, ok, "the result is the agent update's: %T", out.Update.Result)
	assert.Equal(t, []string{"metadata", "name"}, res.UpdatedFields)
	assert.Equal(t, "gold", w.agent().Metadata["tier"])
	assert.Equal(t, map[string]any{"ticket": "T-1"}, out.Update.Extra, "members the schema does not name are kept")
}

func TestSubmitRejectedStoresItsError(t *testing.T) {
	w := newWorld(t)
	out, err := w.submit(w.key, request(t, agentPatchBody(w, "k", "none", `{"name": "Renamed"}`, "")))
	require.NoError(t, err)
	assert.Equal(t, voiceagent.CodeForbidden, out.Update.Error["code"])
	assert.Equal(t, http.StatusForbidden, httpapi.Status(out.Rejection))
	assert.Contains(t, string(responseBody(out)), `"governed_update_id":"`+out.Update.ID+`"`)
}

func TestSubmitIdempotency(t *testing.T) {
	w := newWorld(t)
	body := agentPatchBody(w, "same", "agent_asserted", `{"first_message": "Hi"}`, "")
	first, err := w.submit(w.key, request(t, body))
	require.NoError(t, err)
	again, err := w.submit(w.key, request(t, body))
	require.NoError(t, err)
	assert.True(t, again.Replayed)
	assert.Same(t, first.Update, again.Update)
	assert.Equal(t, responseBody(first), responseBody(again))

	_, err = w.submit(w.key, request(t, agentPatchBody(w, "same", "agent_asserted", `{"first_message": "Other"}`, "")))
	apiError(t, err, voiceagent.CodeIdempotencyConflict)
	assert.Equal(t, "Hi", w.agent().FirstMessage)
}

func TestSubmitRetriesAfterProviderFailure(t *testing.T) {
	w := newWorld(t)
	body := agentPatchBody(w, "flaky", "agent_asserted", `{"name": "Renamed"}`, "")
	w.failed = true
	_, err := w.submit(w.key, request(t, body))
	apiError(t, err, voiceagent.CodeVendorError)
	w.failed = false
	out, err := w.submit(w.key, request(t, body))
	require.NoError(t, err)
	assert.False(t, out.Replayed, "a failure is not an outcome")
	assert.Equal(t, governedApplied, out.Update.Status)
}

func TestSubmitDryRun(t *testing.T) {
	w := newWorld(t)
	out, err := w.submit(w.key, request(t, agentPatchBody(w, "k", "none", `{"name": "Renamed"}`, `, "dry_run": true`)))
	require.NoError(t, err)
	require.NotNil(t, out.Preview)
	assert.Nil(t, out.Update)
	assert.Equal(t, governedRejected, out.Preview["would"])
	assert.Equal(t, false, out.Preview["authority_sufficient"])
	assert.NotEmpty(t, out.Preview["rejection_reason"])
	assert.Equal(t, []string{"name"}, out.Preview["changes"].(map[string]any)["fields"])
	assert.NotEqual(t, "Renamed", w.agent().Name)
	w.p.Read(func(tx *platform.Tx) { assert.Zero(t, tx.GovernedUpdates.Len(), "dry runs are not stored") })
}

func TestSubmitOtherIntents(t *testing.T) {
	w := newWorld(t)
	confirmed := fmt.Sprintf(`{"mode": "human_confirmed", "confirmed_by": "ops", "confirmed_at": %q}`, start.Format("2006-01-02T15:04:05Z07:00"))
	out, err := w.submit(w.key, request(t, fmt.Sprintf(`{"intent": "phone.emergency_address.set", "idempotency_key": "e",
		"target": {"phone_number": %q}, "payload": {"street": "1 Main St", "city": "Springfield"}, "authority": %s}`, w.acct.Number.PhoneNumber, confirmed)))
	require.NoError(t, err)
	assert.Equal(t, governedApplied, out.Update.Status)
	w.p.Read(func(tx *platform.Tx) {
		ea := tx.EmergencyAddresses[w.acct.Number.ID]
		require.NotNil(t, ea)
		assert.Equal(t, "1 Main St", ea.Address["street"])
		assert.Equal(t, out.Update.ID, ea.UpdateID)
	})

	_, err = w.submit(w.key, request(t, fmt.Sprintf(`{"intent": "phone.emergency_address.set", "idempotency_key": "e2",
		"target": {"phone_number": %q}, "payload": {"street": "x"}, "authority": %s}`, w.other.Number.PhoneNumber, confirmed)))
	apiError(t, err, voiceagent.CodeNotFound)

	out, err = w.submit(w.key, request(t, `{"intent": "transcripts.sink.configure", "idempotency_key": "s",
		"payload": {"url": "https://sink.example/t", "format": "text"}, "authority": {"mode": "system_policy"}}`))
	require.NoError(t, err)
	assert.Equal(t, governedApplied, out.Update.Status)
	w.p.Read(func(tx *platform.Tx) {
		sink := tx.TranscriptSinks[w.acct.Business.ID]
		require.NotNil(t, sink)
		assert.Equal(t, "https://sink.example/t", sink.URL)
		assert.Equal(t, "text", sink.Format)
		assert.True(t, sink.Enabled)
	})
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		decision string
		failed   bool
		status   string
		renamed  bool
		errCode  string // the recorded error's code
	}{
		{name: "approve", decision: "approve", status: governedApplied, renamed: true},
		{name: "reject", decision: "reject", status: governedRejected},
		{name: "approve while the provider fails", decision: "approve", failed: true, status: governedFailed, errCode: voiceagent.CodeVendorError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			out, err := w.submit(w.key, request(t, agentPatchBody(w, "k", "none", `{"name": "Renamed"}`, `, "queue_for_approval": true`)))
			require.NoError(t, err)
			g := out.Update
			require.Equal(t, governedPending, g.Status)
			require.NotEqual(t, "Renamed", w.agent().Name, "a queued update changes nothing")

			w.failed = tt.failed
			w.advance(60e9)
			note := "looked fine"
			decide := func() error {
				var err error
				w.p.Write(func(tx *platform.Tx) {
					err = w.gov.Decide(tx, w.p.Now(w.key.Tenant), w.dash, g, tt.decision, &note, w.providerFault)
				})
				return err
			}
			require.NoError(t, decide())
			assert.Equal(t, tt.status, g.Status)
			assert.Equal(t, w.acct.User.ID, g.DecidedBy)
			require.NotNil(t, g.DecidedAt)
			assert.True(t, g.DecidedAt.Equal(start.Add(60e9)), "decided at the tenant's time")
			assert.Equal(t, &note, g.DecisionNote)
			assert.Equal(t, tt.renamed, w.agent().Name == "Renamed")
			if tt.errCode != "" {
				assert.Equal(t, tt.errCode, g.Error["code"])
			} else {
				assert.Nil(t, g.Error)
			}

			e := apiError(t, decide(), voiceagent.CodeConflict)
			assert.Contains(t, e.Message, "not pending_approval", "a decided update is decided once")
		})
	}
}
