package telephony

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// checkScript refuses the members a step's outcome does not use, naming
// the member, and a script without steps.
func TestCheckScript(t *testing.T) {
	n := 30
	for _, tc := range []struct {
		name string
		in   admin.Script
		path string // "" when accepted
	}{
		{"a completed call with everything", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "completed", Duration: &n, RingSeconds: &n,
			Transcript: []admin.Turn{{Role: "agent", Text: "Hi"}}, Summary: "s", Caller: &admin.ScriptCaller{Name: "A"}}}}, ""},
		{"a voicemail with a summary", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "voicemail", Summary: "s"}}}, ""},
		{"a delivered text with a reply", admin.Script{Texts: []admin.TextStep{{To: "*", Outcome: "delivered", Reply: &admin.TextReply{Body: "STOP"}}}}, ""},
		{"no steps", admin.Script{}, "-"},
		{"a busy call with a duration", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "completed"}, {To: "*", Outcome: "busy", Duration: &n}}}, "/calls/1/duration"},
		{"a no-answer call with a transcript", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "no_answer", Transcript: []admin.Turn{{Role: "agent", Text: "Hi"}}}}}, "/calls/0/transcript"},
		{"a busy call with a summary", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "busy", Summary: "s"}}}, "/calls/0/summary"},
		{"a voicemail with caller details", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "voicemail", Caller: &admin.ScriptCaller{Name: "A"}}}}, "/calls/0/caller"},
		{"a rejected call that rings", admin.Script{Calls: []admin.CallStep{{To: "*", Outcome: "rejected", RingSeconds: &n}}}, "/calls/0/ring_seconds"},
		{"a failed text with a reply", admin.Script{Texts: []admin.TextStep{{To: "*", Outcome: "failed", Reply: &admin.TextReply{Body: "hi"}}}}, "/texts/0/reply"},
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
