package webhooks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventTypes(t *testing.T) {
	types := EventTypes()
	require.Len(t, types, 27)
	// The list of spec section 6, verbatim.
	spec := "lead.created, lead.scored, call.received, call.started, call.completed, call.failed, sms.received, sms.sent, sms.delivered, sms.failed, voicemail.received, dispatcher.briefing_created, dispatcher.handoff_dispatched, phone_number.assigned, phone_number.released, phone_number.purchased, workspace.paused, workspace.canceled, workspace.created, workspace.provisioning_failed, workspace.ready, workspace.teardown_completed, lead_email.sent, lead_email.failed, callback.scheduled, callback.completed, conversation.handoff"
	assert.Equal(t, strings.Split(spec, ", "), typeStrings(types))
	for _, ty := range types {
		assert.True(t, IsEventType(string(ty)), ty)
	}
	assert.False(t, IsEventType("lead.deleted"))
	assert.False(t, IsEventType(""))

	// A copy: callers cannot change the package's list.
	types[0] = "changed"
	assert.Equal(t, EventLeadCreated, EventTypes()[0])
}

func TestParse(t *testing.T) {
	ev, err := Parse(testBody)
	require.NoError(t, err)
	assert.Equal(t, "evt_1", ev.ID)
	assert.Equal(t, EventLeadCreated, ev.Type)
	assert.Equal(t, "b1", ev.BusinessID)
	assert.True(t, ev.Timestamp.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)))
	assert.JSONEq(t, `{"id":"lead_1"}`, string(ev.Data))

	var lead struct{ ID string }
	require.NoError(t, ev.DecodeData(&lead))
	assert.Equal(t, "lead_1", lead.ID)

	var wrong struct{ ID int }
	err = ev.DecodeData(&wrong)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "evt_1")

	// Round trip through json.Marshal.
	b, err := json.Marshal(ev)
	require.NoError(t, err)
	ev2, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, ev, ev2)

	// The data is a copy, not a window into the caller's buffer.
	buf := append([]byte{}, testBody...)
	ev3, err := Parse(buf)
	require.NoError(t, err)
	for i := range buf {
		buf[i] = ' '
	}
	assert.JSONEq(t, `{"id":"lead_1"}`, string(ev3.Data))
}

func TestParseTimestamps(t *testing.T) {
	want := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, ts := range []string{
		`"2025-01-02T03:04:05Z"`,
		`"2025-01-02T03:04:05.000Z"`,
		`"2025-01-02T04:04:05+01:00"`,
		`"2025-01-02T04:04:05+0100"`,
		`"2025-01-02T03:04:05"`,
		`"2025-01-02 03:04:05+00:00"`,
		`1735787045`,
		`"1735787045"`,
		`1735787045.0`,
	} {
		ev, err := Parse([]byte(`{"id":"e","event":"x","timestamp":` + ts + `}`))
		if assert.NoError(t, err, ts) {
			assert.True(t, want.Equal(ev.Timestamp), "%s gave %s", ts, ev.Timestamp)
		}
	}
	for _, ts := range []string{`null`, `""`} {
		ev, err := Parse([]byte(`{"id":"e","event":"x","timestamp":` + ts + `}`))
		require.NoError(t, err, ts)
		assert.True(t, ev.Timestamp.IsZero())
	}
	for _, ts := range []string{`"yesterday"`, `true`, `{}`, `1e300`, `"02/01/2025"`} {
		_, err := Parse([]byte(`{"id":"e","event":"x","timestamp":` + ts + `}`))
		assert.ErrorIs(t, err, ErrInvalidPayload, ts)
	}
}

func TestParseErrors(t *testing.T) {
	for name, body := range map[string]string{
		"empty":       ``,
		"not json":    `hello`,
		"array":       `[]`,
		"string":      `"x"`,
		"no id":       `{"event":"lead.created","data":{}}`,
		"no event":    `{"id":"e","data":{}}`,
		"id number":   `{"id":1,"event":"lead.created"}`,
		"event null":  `{"id":"e","event":null}`,
		"trailing":    `{"id":"e","event":"x"} {}`,
		"call flat":   `{"event":"call.completed","call_id":"c1","status":"completed"}`,
		"business id": `{"id":"e","event":"x","business_id":7}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(body))
			require.ErrorIs(t, err, ErrInvalidPayload)
		})
	}
	_, err := Parse([]byte(`{"event":"call.completed","call_id":"c1","status":"completed"}`))
	assert.Contains(t, err.Error(), "ParseCallWebhook")

	// No data, or null data: DecodeData says so.
	for _, body := range []string{`{"id":"e","event":"x"}`, `{"id":"e","event":"x","data":null}`} {
		ev, err := Parse([]byte(body))
		require.NoError(t, err)
		assert.Nil(t, ev.Data)
		var v map[string]any
		assert.ErrorIs(t, ev.DecodeData(&v), ErrInvalidPayload)
	}
}

func TestParseCallWebhook(t *testing.T) {
	completed := `{"event":"call.completed","call_id":"c1","status":"completed","duration":95,"recording_url":"https://rec.example/c1.mp3","summary":"Booked a demo.","timestamp":"2025-01-02T03:04:05.000000000Z"}`
	c, err := ParseCallWebhook([]byte(completed))
	require.NoError(t, err)
	assert.Equal(t, &CallWebhook{
		Event: EventCallCompleted, CallID: "c1", Status: "completed", Duration: 95,
		RecordingURL: "https://rec.example/c1.mp3", Summary: "Booked a demo.",
		Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}, c)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, completed, string(b))

	failed := `{"event":"call.failed","call_id":"c2","status":"failed","error":"no_answer","timestamp":"2025-01-02T03:04:05.000000000Z"}`
	c, err = ParseCallWebhook([]byte(failed))
	require.NoError(t, err)
	assert.Equal(t, "no_answer", c.Error)
	assert.Equal(t, "failed", c.Status)
	assert.Zero(t, c.Duration)
	b, err = json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, failed, string(b), "call.failed has exactly the spec's fields")

	// Lenient on nulls, whole floats and quoted numbers.
	c, err = ParseCallWebhook([]byte(`{"event":"call.completed","call_id":"c3","status":"completed","duration":12.0,"recording_url":null,"summary":null,"error":null,"timestamp":null}`))
	require.NoError(t, err)
	assert.Equal(t, 12, c.Duration)
	assert.Empty(t, c.RecordingURL)
	c, err = ParseCallWebhook([]byte(`{"event":"call.completed","call_id":"c3","duration":"30"}`))
	require.NoError(t, err)
	assert.Equal(t, 30, c.Duration)

	for name, body := range map[string]string{
		"not json":        `nope`,
		"no call_id":      `{"event":"call.completed","status":"completed"}`,
		"no event":        `{"call_id":"c1"}`,
		"fraction":        `{"event":"call.completed","call_id":"c1","duration":1.5}`,
		"huge duration":   `{"event":"call.completed","call_id":"c1","duration":1e30}`,
		"duration string": `{"event":"call.completed","call_id":"c1","duration":"long"}`,
		"standard body":   string(testBody),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCallWebhook([]byte(body))
			require.ErrorIs(t, err, ErrInvalidPayload)
		})
	}
	_, err = ParseCallWebhook(testBody)
	assert.Contains(t, err.Error(), "use Parse")
}

func TestConstructEvent(t *testing.T) {
	now := time.Now()
	h := signed(t, []string{testSecret}, testMsgID, now, testBody)
	ev, err := ConstructEvent(testBody, h, testSecret2, testSecret)
	require.NoError(t, err)
	assert.Equal(t, "evt_1", ev.ID)

	_, err = ConstructEvent(testBody, h, testSecret2)
	assert.ErrorIs(t, err, ErrInvalidSignature)
	_, err = ConstructEvent(testBody, h)
	assert.ErrorIs(t, err, ErrInvalidSecret)

	bad := []byte(`{"not":"an event"}`)
	_, err = ConstructEvent(bad, signed(t, []string{testSecret}, testMsgID, now, bad), testSecret)
	assert.ErrorIs(t, err, ErrInvalidPayload)

	old := signed(t, []string{testSecret}, testMsgID, now.Add(-time.Hour), testBody)
	_, err = ConstructEvent(testBody, old, testSecret)
	assert.ErrorIs(t, err, ErrTimestampTooOld)
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(testBody))
	f.Add([]byte(`{"event":"call.completed","call_id":"c1","status":"completed","duration":95,"recording_url":"u","summary":"s","timestamp":"2025-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"event":"call.failed","call_id":"c2","status":"failed","error":"busy","timestamp":1735787045}`))
	f.Add([]byte(`{"id":"e","event":"x","timestamp":"2025-01-02T04:04:05+0100","data":null}`))
	f.Add([]byte(`{"id":"e","event":"x","timestamp":-1e12}`))
	f.Add([]byte(`{"duration":12.0000000001,"call_id":"","data":[]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := Parse(body)
		if err != nil {
			if !errors.Is(err, ErrInvalidPayload) {
				t.Fatalf("Parse error without ErrInvalidPayload: %v", err)
			}
		} else {
			if ev.ID == "" || ev.Type == "" {
				t.Fatalf("Parse accepted an event without id or type: %q", body)
			}
			if ev.Data != nil && !json.Valid(ev.Data) {
				t.Fatalf("invalid data %q", ev.Data)
			}
			var v any
			_ = ev.DecodeData(&v)
			// What Parse returns survives a round trip.
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			ev2, err := Parse(b)
			if err != nil {
				t.Fatalf("round trip of %q: %v", b, err)
			}
			if ev2.ID != ev.ID || ev2.Type != ev.Type || ev2.BusinessID != ev.BusinessID || !ev2.Timestamp.Equal(ev.Timestamp) {
				t.Fatalf("round trip changed the event: %+v vs %+v", ev, ev2)
			}
		}

		c, err := ParseCallWebhook(body)
		if err != nil {
			if !errors.Is(err, ErrInvalidPayload) {
				t.Fatalf("ParseCallWebhook error without ErrInvalidPayload: %v", err)
			}
		} else if c.Event == "" || c.CallID == "" {
			t.Fatalf("ParseCallWebhook accepted a body without event or call_id: %q", body)
		}

	})
}

// typeStrings returns types as plain strings.
func typeStrings(types []EventType) []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = string(t)
	}
	return out
}
