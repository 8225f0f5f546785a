package governance_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func requireAPIError(t *testing.T, err error, status int, code string) *voiceagent.Error {
	t.Helper()
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode, apiErr.Message)
	assert.Equal(t, code, apiErr.Code, apiErr.Message)
	return apiErr
}

func detailPaths(e *voiceagent.Error) []string {
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Path)
	}
	return out
}

func agentPatch(agentID, key string, payload map[string]any, mode string) *governance.UpdateParams {
	return &governance.UpdateParams{
		Intent: governance.IntentAgentPatch, Target: governance.AgentTarget{AgentID: agentID}, Payload: payload,
		IdempotencyKey: key, Actor: &governance.Actor{Type: "agent", ID: "assistant-7"},
		Authority: &governance.Authority{Mode: mode},
	}
}

func TestAgentPatchReallyPatchesAndReplaysTheFirstOutcome(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	g := env.Client.GovernedUpdates
	p := agentPatch(env.Account.AgentID, "patch-1", map[string]any{"first_message": "Hi, thanks for calling!", "metadata": map[string]any{"tier": "gold"}},
		governance.AuthorityAgentAsserted)
	p.Reason, p.SourceRef = "owner asked on a call", "ticket-9"
	p.Extra = map[string]any{"x_trace": "abc"}

	var resp *http.Response
	u, err := g.Submit(ctx, p, voiceagent.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, governance.StatusApplied, u.Status)
	assert.Equal(t, env.Account.BusinessID, u.BusinessID, "business from the target")
	assert.Equal(t, []any{"first_message", "metadata"}, u.Result["updated_fields"])
	assert.Equal(t, map[string]any{"x_trace": "abc"}, u.Extra, "extra top-level properties are kept")
	assert.Equal(t, "ticket-9", *u.SourceRef)

	a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "Hi, thanks for calling!", a.FirstMessage, "the agent really changed")
	assert.Equal(t, "gold", a.Metadata["tier"])

	// Someone changes the agent; a replay returns the first outcome and applies nothing.
	_, err = env.Client.Agents.Update(ctx, &agents.UpdateParams{ID: env.Account.AgentID, FirstMessage: voiceagent.String("Changed")})
	require.NoError(t, err)
	again, err := g.Submit(ctx, p, voiceagent.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, "true", resp.Header.Get(voiceagent.HeaderIdempotentReplay))
	assert.Equal(t, u, again)
	a, err = env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "Changed", a.FirstMessage, "the replay did not apply again")

	// The same key with another body is a conflict.
	other := *p
	other.Payload = map[string]any{"first_message": "Different"}
	_, err = g.Submit(ctx, &other)
	assert.ErrorIs(t, err, voiceagent.ErrIdempotencyConflict)

	// Keys are per business: another tenant's "patch-1" is its own.
	acct := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	theirs, err := env.ClientFor(acct.APIKey).GovernedUpdates.Submit(ctx, agentPatch(acct.AgentID, "patch-1",
		map[string]any{"name": "Theirs"}, governance.AuthorityAgentAsserted))
	require.NoError(t, err)
	assert.NotEqual(t, u.ID, theirs.ID)

	got, err := g.Get(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, governance.StatusApplied, got.Status)
	_, err = g.Get(ctx, theirs.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	list, err := g.List(ctx, &governance.ListParams{Intent: governance.IntentAgentPatch, Status: governance.StatusApplied})
	require.NoError(t, err)
	require.Len(t, list.Data, 1)
	assert.Equal(t, u.ID, list.Data[0].ID)
}

func TestAuthorityModesRejectQueueOrApply(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	g := env.Client.GovernedUpdates
	addr := governance.EmergencyAddress{Name: "Acme Plumbing", Street: "1 Main St", City: "Springfield", State: "IL", PostalCode: "62701", Country: "US"}
	emergency := func(key, mode string) *governance.UpdateParams {
		return &governance.UpdateParams{Intent: governance.IntentEmergencyAddress, IdempotencyKey: key,
			Target: governance.NumberTarget{PhoneNumber: env.Account.PhoneNumber}, Payload: addr,
			Authority: &governance.Authority{Mode: mode}}
	}

	t.Run("an agent cannot set an emergency address; the rejection replays", func(t *testing.T) {
		_, err := g.Submit(ctx, emergency("e-1", governance.AuthorityAgentAsserted))
		apiErr := requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
		var body struct {
			Error struct {
				ID    string   `json:"governed_update_id"`
				Modes []string `json:"allowed_authority_modes"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(apiErr.Body, &body))
		assert.Equal(t, []string{"human_confirmed", "dashboard_session"}, body.Error.Modes)
		var resp *http.Response
		_, err = g.Submit(ctx, emergency("e-1", governance.AuthorityAgentAsserted), voiceagent.WithResponseInto(&resp))
		replayed := requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
		assert.Equal(t, apiErr.Body, replayed.Body, "the first outcome, again")
		assert.Equal(t, "true", resp.Header.Get(voiceagent.HeaderIdempotentReplay))
		rec, err := g.Get(ctx, body.Error.ID)
		require.NoError(t, err)
		assert.Equal(t, governance.StatusRejected, rec.Status)
	})
	t.Run("human_confirmed needs who and when", func(t *testing.T) {
		_, err := g.Submit(ctx, emergency("e-2", governance.AuthorityHumanConfirmed))
		apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
		assert.Equal(t, []string{"/authority/confirmed_by"}, detailPaths(apiErr))
		p := emergency("e-2", governance.AuthorityHumanConfirmed)
		p.Authority.ConfirmedBy = "owner"
		p.Authority.ConfirmedAt = voiceagent.Time(env.Server.Now().Add(time.Hour))
		_, err = g.Submit(ctx, p)
		apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
		assert.Equal(t, []string{"/authority/confirmed_at"}, detailPaths(apiErr))
		// The key was not used up by the bad requests.
		p.Authority.ConfirmedAt = voiceagent.Time(env.Server.Now().Add(-time.Minute))
		p.Authority.ConfirmationRef = "call-1"
		u, err := g.Submit(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, governance.StatusApplied, u.Status)
		assert.Equal(t, "Springfield", u.Result["emergency_address"].(map[string]any)["city"])
		assert.Equal(t, env.Account.PhoneNumber, u.Result["phone_number"])
	})
	t.Run("dashboard_session needs a session", func(t *testing.T) {
		_, err := g.Submit(ctx, emergency("e-3", governance.AuthorityDashboardSession))
		requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
		session := env.ClientFor("", voiceagent.WithSessionCookie(env.Account.Session), voiceagent.WithAPIKey(""))
		u, err := session.GovernedUpdates.Submit(ctx, emergency("e-4", governance.AuthorityDashboardSession))
		require.NoError(t, err)
		assert.Equal(t, governance.StatusApplied, u.Status)
	})
	t.Run("queued for approval, approved in the dashboard", func(t *testing.T) {
		p := agentPatch(env.Account.AgentID, "q-1", map[string]any{"outbound_prompt": "Queued prompt."}, governance.AuthorityNone)
		p.QueueForApproval = true
		var resp *http.Response
		u, err := g.Submit(ctx, p, voiceagent.WithResponseInto(&resp))
		require.NoError(t, err)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode)
		assert.Equal(t, governance.StatusPendingApproval, u.Status)
		a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
		require.NoError(t, err)
		assert.NotEqual(t, "Queued prompt.", *a.Prompts.Outbound.Prompt, "nothing applied yet")

		_, err = g.Decide(ctx, &governance.DecideParams{ID: u.ID, Decision: "approve"})
		requireAPIError(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
		session := env.ClientFor("", voiceagent.WithSessionCookie(env.Account.Session), voiceagent.WithAPIKey(""))
		d, err := session.GovernedUpdates.Decide(ctx, &governance.DecideParams{ID: u.ID, Decision: "approve", Note: "fine"})
		require.NoError(t, err)
		assert.Equal(t, governance.StatusApplied, d.Status)
		assert.Equal(t, "fine", *d.DecisionNote)
		require.NotNil(t, d.DecidedBy)
		a, err = env.Client.Agents.Get(ctx, env.Account.AgentID)
		require.NoError(t, err)
		assert.Equal(t, "Queued prompt.", *a.Prompts.Outbound.Prompt)
		_, err = session.GovernedUpdates.Decide(ctx, &governance.DecideParams{ID: u.ID, Decision: "reject"})
		requireAPIError(t, err, http.StatusConflict, voiceagent.CodeConflict)
		replay, err := g.Submit(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, governance.StatusPendingApproval, replay.Status, "a replay returns the first outcome, not the current state")
	})
	t.Run("queued and rejected", func(t *testing.T) {
		p := agentPatch(env.Account.AgentID, "q-2", map[string]any{"name": "Never"}, governance.AuthorityHumanConfirmed)
		p.Authority.ConfirmedBy, p.Authority.ConfirmedAt = "owner", voiceagent.Time(env.Server.Now())
		p.QueueForApproval = true
		u, err := g.Submit(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, governance.StatusPendingApproval, u.Status, "queue_for_approval queues even with enough authority")
		session := env.ClientFor("", voiceagent.WithSessionCookie(env.Account.Session), voiceagent.WithAPIKey(""))
		d, err := session.GovernedUpdates.Decide(ctx, &governance.DecideParams{ID: u.ID, Decision: "reject"})
		require.NoError(t, err)
		assert.Equal(t, governance.StatusRejected, d.Status)
		a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
		require.NoError(t, err)
		assert.NotEqual(t, "Never", a.Name)
	})
	t.Run("transcript sink", func(t *testing.T) {
		sink := func(key, mode string) *governance.UpdateParams {
			return &governance.UpdateParams{Intent: governance.IntentTranscriptSink, IdempotencyKey: key,
				Payload:   governance.TranscriptSink{URL: "https://sink.example/transcripts", Format: "text"},
				Authority: &governance.Authority{Mode: mode}, Actor: &governance.Actor{Type: "system"}}
		}
		_, err := g.Submit(ctx, sink("s-1", governance.AuthorityAgentAsserted))
		requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
		u, err := g.Submit(ctx, sink("s-2", governance.AuthoritySystemPolicy))
		require.NoError(t, err)
		assert.Equal(t, governance.StatusApplied, u.Status)
		assert.Equal(t, env.Account.BusinessID, u.BusinessID, "the key's only business")
		stored := u.Result["transcript_sink"].(map[string]any)
		assert.Equal(t, "https://sink.example/transcripts", stored["url"])
		assert.Equal(t, true, stored["enabled"])
		assert.Equal(t, "text", stored["format"])
	})
}

func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	p := agentPatch(env.Account.AgentID, "", map[string]any{"name": "Dry"}, governance.AuthorityAgentAsserted)
	p.DryRun = true
	u, err := env.Client.GovernedUpdates.Submit(ctx, p)
	require.NoError(t, err)
	assert.True(t, u.DryRun)
	assert.Equal(t, governance.StatusDryRun, u.Status)
	assert.Equal(t, governance.StatusApplied, u.Would)
	assert.True(t, u.AuthoritySufficient)
	assert.Equal(t, []any{"name"}, u.Changes["fields"])
	p.Authority.Mode = governance.AuthorityNone
	u, err = env.Client.GovernedUpdates.Submit(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, governance.StatusRejected, u.Would)
	assert.NotEmpty(t, u.RejectionReason)

	sink := &governance.UpdateParams{Intent: governance.IntentTranscriptSink, DryRun: true,
		Payload: governance.TranscriptSink{URL: "https://sink.example/t"}, Authority: &governance.Authority{Mode: governance.AuthoritySystemPolicy}}
	u, err = env.Client.GovernedUpdates.Submit(ctx, sink)
	require.NoError(t, err)
	assert.Nil(t, u.Changes["current"], "no sink yet")

	a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.NotEqual(t, "Dry", a.Name)
	list, err := env.Client.GovernedUpdates.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, list.Data, "dry runs are not stored")
}

func TestGovernedUpdateErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	g := env.Client.GovernedUpdates
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	mode := governance.AuthorityAgentAsserted

	_, err := g.Submit(ctx, agentPatch(env.Account.AgentID, "bad", map[string]any{"name": ""}, mode))
	apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, []string{"/payload/name"}, detailPaths(apiErr), "the agent update's rules, under /payload")
	_, err = g.Submit(ctx, agentPatch(env.Account.AgentID, "bad", map[string]any{"colour": "red"}, mode))
	apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, []string{"/payload"}, detailPaths(apiErr))
	_, err = g.Submit(ctx, agentPatch(other.AgentID, "x", map[string]any{"name": "Mine"}, mode))
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's agent")
	p := agentPatch(env.Account.AgentID, "x", map[string]any{"name": "n"}, mode)
	p.BusinessID = other.BusinessID
	_, err = g.Submit(ctx, p)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	p.IdempotencyKey = ""
	p.BusinessID = ""
	_, err = g.Submit(ctx, p)
	requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)

	em := &governance.UpdateParams{Intent: governance.IntentEmergencyAddress, IdempotencyKey: "e",
		Target:    governance.NumberTarget{PhoneNumber: other.PhoneNumber},
		Payload:   governance.EmergencyAddress{Street: "1 Main St", City: "S", State: "IL", PostalCode: "1", Country: "US"},
		Authority: &governance.Authority{Mode: governance.AuthorityHumanConfirmed, ConfirmedBy: "o", ConfirmedAt: voiceagent.Time(env.Server.Now())}}
	_, err = g.Submit(ctx, em)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's number")
	em.Target = map[string]any{"phone_number": env.Account.PhoneNumber, "number_id": "00000000-0000-4000-8000-000000000000"}
	_, err = g.Submit(ctx, em)
	requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	em.Payload = map[string]any{"street": "1 Main St"}
	_, err = g.Submit(ctx, em)
	apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Contains(t, detailPaths(apiErr), "/payload")

	// A failing voice provider is not an outcome: the same key runs again.
	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/governed-updates", Target: mockserver.FaultTargetVoiceProvider, Status: 502, Times: 1})
	fp := agentPatch(env.Account.AgentID, "flaky", map[string]any{"first_message": "Retry me"}, mode)
	_, err = g.Submit(ctx, fp)
	requireAPIError(t, err, http.StatusBadGateway, voiceagent.CodeVendorError)
	u, err := g.Submit(ctx, fp)
	require.NoError(t, err)
	assert.Equal(t, governance.StatusApplied, u.Status)

	// Scopes per intent.
	agentsOnly := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"agents:write", "agents:read"}}).APIKey)
	_, err = agentsOnly.GovernedUpdates.Submit(ctx, &governance.UpdateParams{Intent: governance.IntentTranscriptSink, IdempotencyKey: "s",
		Payload: governance.TranscriptSink{URL: "https://s.example"}, Authority: &governance.Authority{Mode: governance.AuthoritySystemPolicy}})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	ws := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"workspaces:write", "workspaces:read"}})
	_, err = env.ClientFor(ws.APIKey).GovernedUpdates.Submit(ctx, agentPatch(ws.AgentID, "k", map[string]any{"name": "x"}, mode))
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	ro := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"calls:read"}})
	_, err = env.ClientFor(ro.APIKey).GovernedUpdates.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

// TestBusinessResolution: business_id must be the target's, and is required
// when nothing else names a business and the key reaches several.
func TestBusinessResolution(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	// Two businesses of one user: the first account's key reaches both.
	acct := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Email: "owner@two-businesses.example"})
	second := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Email: "owner@two-businesses.example", BusinessName: "Second"})
	require.Equal(t, acct.UserID, second.UserID)
	env.Account, env.Client = acct, env.ClientFor(acct.APIKey)

	p := agentPatch(env.Account.AgentID, "b-1", map[string]any{"name": "x"}, governance.AuthorityAgentAsserted)
	p.BusinessID = second.BusinessID
	_, err := env.Client.GovernedUpdates.Submit(ctx, p)
	apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, []string{"/business_id"}, detailPaths(apiErr))

	sink := &governance.UpdateParams{Intent: governance.IntentTranscriptSink, IdempotencyKey: "s-1",
		Payload: governance.TranscriptSink{URL: "https://sink.example/t"}, Authority: &governance.Authority{Mode: governance.AuthoritySystemPolicy}}
	_, err = env.Client.GovernedUpdates.Submit(ctx, sink)
	apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, []string{"/business_id"}, detailPaths(apiErr), "two businesses: say which")
	sink.BusinessID = second.BusinessID
	u, err := env.Client.GovernedUpdates.Submit(ctx, sink)
	require.NoError(t, err)
	assert.Equal(t, second.BusinessID, u.BusinessID)
	// The same key in the other business is another update.
	sink.BusinessID = env.Account.BusinessID
	other, err := env.Client.GovernedUpdates.Submit(ctx, sink)
	require.NoError(t, err)
	assert.NotEqual(t, u.ID, other.ID)
}
