package telephony_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// place places an outbound call of the account's agent at the world's
// current time.
func (w *world) place(t *testing.T, oc telephony.OutboundCall) (*store.Call, *domain.Error) {
	t.Helper()
	var c *store.Call
	var err *domain.Error
	w.p.Write(func(tx *platform.Tx) {
		oc.Agent = w.acct.Agent
		c, err = w.tel.PlaceOutboundCall(tx, w.p.Now(w.tenant()), oc)
	})
	return c, err
}

// call returns the stored call with the id.
func (w *world) call(t *testing.T, id string) *store.Call {
	t.Helper()
	var c *store.Call
	var ok bool
	w.p.Read(func(tx *platform.Tx) { c, ok = tx.Calls.Get(id) })
	require.True(t, ok, "call %s is stored", id)
	return c
}

func TestCallSimulation(t *testing.T) {
	tests := []struct {
		name        string
		to          string
		maxDuration *int
		// after is how long after placing the call it is looked at.
		after   func(planned int) time.Duration
		status  string
		errCode string // Call.Error of a failed call
		ended   string // Call.EndedReason
		talked  bool   // the call has a transcript and a summary
	}{
		{name: "ringing", to: "+15551230001", after: func(int) time.Duration { return time.Second }, status: store.CallQueued},
		{name: "answered", to: "+15551230001", after: func(int) time.Duration { return 2 * time.Second }, status: store.CallInProgress},
		{name: "still talking", to: "+15551230001", after: func(p int) time.Duration { return time.Duration(p+1) * time.Second }, status: store.CallInProgress},
		{name: "completed", to: "+15551230001", after: func(p int) time.Duration { return time.Duration(p+2) * time.Second },
			status: store.CallCompleted, ended: "completed", talked: true},
		{name: "cut by max_duration", to: "+15551230002", maxDuration: ptr(10), after: func(int) time.Duration { return 12 * time.Second },
			status: store.CallCompleted, ended: "max_duration", talked: true},
		{name: "no answer rings 30 s", to: "+15005550001", after: func(int) time.Duration { return 29 * time.Second }, status: store.CallQueued},
		{name: "no answer", to: "+15005550001", after: func(int) time.Duration { return 30 * time.Second },
			status: store.CallFailed, errCode: "no_answer", ended: "no_answer"},
		{name: "busy", to: "+15005550002", after: func(int) time.Duration { return 2 * time.Second },
			status: store.CallFailed, errCode: "busy", ended: "busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			c, err := w.place(t, telephony.OutboundCall{To: tt.to, MaxDuration: tt.maxDuration})
			require.Nil(t, err)
			assert.Equal(t, store.CallQueued, c.Status)
			assert.Equal(t, w.acct.Number.PhoneNumber, c.From, "from the agent's number")
			planned := c.PlannedDuration
			assert.GreaterOrEqual(t, planned, 30)
			assert.LessOrEqual(t, planned, 300)
			w.advance(tt.after(planned))
			got := w.call(t, c.ID)
			assert.Equal(t, tt.status, got.Status)
			assert.Equal(t, tt.errCode, got.Error)
			assert.Equal(t, tt.ended, got.EndedReason)
			if tt.talked {
				want := planned
				if tt.maxDuration != nil {
					want = min(planned, *tt.maxDuration)
				}
				assert.Equal(t, want, got.Duration)
				assert.NotEmpty(t, got.Transcript)
				assert.NotEmpty(t, got.Summary)
				assert.NotNil(t, got.Quality)
				assert.True(t, got.Recorded)
			} else {
				assert.Empty(t, got.Transcript)
			}
		})
	}
}

func TestCallDurationDerivedFromNumber(t *testing.T) {
	seen := map[int]bool{}
	for _, to := range []string{"+15551230001", "+15551230002", "+15551230003", "+15551230004", "+15551230005"} {
		a, err := newWorld(t).place(t, telephony.OutboundCall{To: to})
		require.Nil(t, err)
		b, err := newWorld(t).place(t, telephony.OutboundCall{To: to})
		require.Nil(t, err)
		assert.Equal(t, a.PlannedDuration, b.PlannedDuration, "the same number, the same duration")
		assert.GreaterOrEqual(t, a.PlannedDuration, 30)
		assert.LessOrEqual(t, a.PlannedDuration, 300)
		seen[a.PlannedDuration] = true
	}
	assert.Greater(t, len(seen), 1, "durations vary with the number")
}

func TestCallRefused(t *testing.T) {
	w := newWorld(t)
	_, err := w.place(t, telephony.OutboundCall{To: telephony.MagicCallFailed})
	require.NotNil(t, err)
	assert.Equal(t, voiceagent.CodeCallFailed, err.Code)
	assert.Equal(t, http.StatusInternalServerError, httpapi.Status(err))

	_, err = w.place(t, telephony.OutboundCall{To: "+15551230001", ProviderFault: func() *domain.Error {
		return domain.New("service_unavailable", "down")
	}})
	require.NotNil(t, err)
	assert.Equal(t, voiceagent.CodeVendorError, err.Code)
	assert.Contains(t, err.Message, "the voice provider refused the call")
	w.p.Read(func(tx *platform.Tx) {
		assert.Zero(t, tx.Calls.Count(w.acct.Business.ID), "a refused call is not stored")
	})
}
