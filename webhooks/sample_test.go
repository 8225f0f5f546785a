package webhooks_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/webhooks"
)

func TestSampleDataHasTheShapeOfEachType(t *testing.T) {
	t.Parallel()
	for _, typ := range webhooks.EventTypes() {
		raw := webhooks.SampleData(typ, webhooks.SampleRecords{})
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m), typ)
		assert.NotEmpty(t, m, typ)
		e := &webhooks.Event{ID: "e1", Type: typ, Data: raw}
		var err error
		switch typ {
		case webhooks.EventLeadCreated, webhooks.EventLeadScored:
			_, err = e.Lead()
		case webhooks.EventSMSReceived, webhooks.EventSMSSent, webhooks.EventSMSDelivered, webhooks.EventSMSFailed:
			_, err = e.Message()
		case webhooks.EventPhoneNumberAssigned, webhooks.EventPhoneNumberReleased, webhooks.EventPhoneNumberPurchased:
			_, err = e.PhoneNumber()
		case webhooks.EventLeadEmailSent, webhooks.EventLeadEmailFailed:
			_, err = e.LeadEmail()
		case webhooks.EventConversationHandoff:
			_, err = e.Handoff()
		case webhooks.EventCallReceived, webhooks.EventCallStarted, webhooks.EventCallCompleted, webhooks.EventCallFailed, webhooks.EventVoicemailReceived:
			_, err = e.Call()
		}
		assert.NoError(t, err, typ)
	}
	assert.JSONEq(t, `{}`, string(webhooks.SampleData("x.unknown", webhooks.SampleRecords{})))
}

func TestSampleDataTakesTheRecordsGiven(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	r := webhooks.SampleRecords{
		BusinessID: "b-1", PhoneNumber: "+15550001111", At: at,
		Call: json.RawMessage(`{"id":"c-1","status":"completed","lead_id":"l-1"}`),
		Lead: json.RawMessage(`{"id":"l-1","phone":"+15552223333","email":null}`),
	}
	var call map[string]any
	require.NoError(t, json.Unmarshal(webhooks.SampleData(webhooks.EventCallStarted, r), &call))
	assert.Equal(t, map[string]any{"id": "c-1", "status": "in-progress", "lead_id": "l-1"}, call, "the latest call, with the event's status")
	assert.JSONEq(t, `{"id":"l-1","phone":"+15552223333","email":null}`, string(webhooks.SampleData(webhooks.EventLeadScored, r)))
	var sms webhooks.MessageData
	require.NoError(t, json.Unmarshal(webhooks.SampleData(webhooks.EventSMSReceived, r), &sms))
	assert.Equal(t, "+15552223333", sms.From)
	assert.Equal(t, "+15550001111", sms.To)
	require.NotNil(t, sms.LeadID)
	assert.Equal(t, "l-1", *sms.LeadID)
	assert.Equal(t, "b-1", sms.BusinessID)
	assert.Equal(t, at, sms.CreatedAt)
	var h webhooks.HandoffData
	require.NoError(t, json.Unmarshal(webhooks.SampleData(webhooks.EventConversationHandoff, r), &h))
	assert.Equal(t, "c-1", h.CallID)
	require.NotNil(t, h.LeadID)
	assert.Equal(t, "l-1", *h.LeadID)
	assert.Equal(t, webhooks.SampleData(webhooks.EventLeadEmailSent, r), webhooks.SampleData(webhooks.EventLeadEmailSent, r), "the same records give the same sample")
}

// sampleInGuide matches a sample of the guide: "- `type`:" then a JSON
// block.
var sampleInGuide = regexp.MustCompile("(?m)^- `([a-z_.]+)`:\\n\\n  ```json\\n  (.+)\\n  ```$")

// TestTheGuideShowsEachSample holds the samples docs/mockserver.md shows
// (section Sample data) equal to SampleData.
func TestTheGuideShowsEachSample(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/mockserver.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n### Sample data\n")
	require.True(t, ok, "the guide has a Sample data section")
	shown := map[webhooks.EventType]string{}
	for _, m := range sampleInGuide.FindAllStringSubmatch(section, -1) {
		shown[webhooks.EventType(m[1])] = m[2]
	}
	for _, typ := range webhooks.EventTypes() {
		got, ok := shown[typ]
		if assert.True(t, ok, "the guide shows the sample of %s", typ) {
			assert.JSONEq(t, string(webhooks.SampleData(typ, webhooks.SampleRecords{})), got, typ)
		}
	}
	assert.Len(t, shown, len(webhooks.EventTypes()))
}
