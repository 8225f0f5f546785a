package telephony

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// checkScript refuses the members a step's outcome does not use, naming
// the member, and a script without steps.
func TestCheckScript(t *testing.T) {
	n := 30
	for _, tc := range []struct {
		name string
		in   Script
		path string // "" when accepted
	}{
		{"a completed call with everything", Script{Calls: []CallStep{{To: "*", Outcome: "completed", Duration: &n, RingSeconds: &n,
			Transcript: []store.ScriptTurn{{Role: "agent", Text: "Hi"}}, Summary: "s", Caller: &store.ScriptCaller{Name: "A"}}}}, ""},
		{"a voicemail with a summary", Script{Calls: []CallStep{{To: "*", Outcome: "voicemail", Summary: "s"}}}, ""},
		{"a delivered text with a reply", Script{Texts: []TextStep{{To: "*", Outcome: "delivered", Reply: &store.ScriptReply{Body: "STOP"}}}}, ""},
		{"no steps", Script{}, "-"},
		{"a busy call with a duration", Script{Calls: []CallStep{{To: "*", Outcome: "completed"}, {To: "*", Outcome: "busy", Duration: &n}}}, "/calls/1/duration"},
		{"a no-answer call with a transcript", Script{Calls: []CallStep{{To: "*", Outcome: "no_answer", Transcript: []store.ScriptTurn{{Role: "agent", Text: "Hi"}}}}}, "/calls/0/transcript"},
		{"a busy call with a summary", Script{Calls: []CallStep{{To: "*", Outcome: "busy", Summary: "s"}}}, "/calls/0/summary"},
		{"a voicemail with caller details", Script{Calls: []CallStep{{To: "*", Outcome: "voicemail", Caller: &store.ScriptCaller{Name: "A"}}}}, "/calls/0/caller"},
		{"a rejected call that rings", Script{Calls: []CallStep{{To: "*", Outcome: "rejected", RingSeconds: &n}}}, "/calls/0/ring_seconds"},
		{"a failed text with a reply", Script{Texts: []TextStep{{To: "*", Outcome: "failed", Reply: &store.ScriptReply{Body: "hi"}}}}, "/texts/0/reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkScript(tc.in)
			if tc.path == "" {
				assert.Nil(t, err)
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, 400, httpapi.Status(err))
			if tc.path != "-" {
				require.NotEmpty(t, err.Details)
				assert.Equal(t, tc.path, err.Details[0].Path)
			}
		})
	}
}
