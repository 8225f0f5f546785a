package httpapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// TestAnEncodedAnswerEncodesAsItsBody: an answer its handler encoded
// (EncodeNow) is written as it is, and where an answer is encoded again
// (a kept answer of another method) it is its body, not a struct.
func TestAnEncodedAnswerEncodesAsItsBody(t *testing.T) {
	tb := store.NewLogTable[*store.UsageEntry]()
	e := &store.UsageEntry{Base: store.Base{ID: "req-1"}, Endpoint: "/v1/agents", Method: "GET", StatusCode: 200}
	tb.Insert(e, "u1", time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC))
	page := EncodedPage[*store.UsageEntry]{Key: "usage", Records: []*store.UsageEntry{e}, Table: tb, Encode: appendUsageItem}.EncodeNow()
	want := `{"usage":[{"id":"` + e.ID + `","endpoint":"/v1/agents","method":"GET","status_code":200,"call_id":null,"cost_cents":0,"created_at":"2026-03-10T16:00:00Z"}],"has_more":false}`
	body, _, plain, _ := page.encode()
	assert.Equal(t, want+"\n", string(body))
	assert.True(t, plain, "nothing the journal redacts")
	again, err := jsonview.EncodeJSON(page)
	require.NoError(t, err)
	assert.Equal(t, want+"\n", string(again))
}

// TestAConstantAnswerIsEncodedOnceAndScreened: a constant answer is its
// value's encoding, the same shared bytes on every read, screened for
// the journal once.
func TestAConstantAnswerIsEncodedOnceAndScreened(t *testing.T) {
	voices := Constant(map[string]any{"voices": []string{"alloy", "verse"}})
	first, pooled, plain, shared := voices().encode()
	assert.Equal(t, `{"voices":["alloy","verse"]}`+"\n", string(first))
	assert.Nil(t, pooled, "nothing to give back to a pool")
	assert.True(t, plain)
	assert.True(t, shared, "the journal keeps it without a copy")
	again, _, _, _ := voices().encode()
	assert.Same(t, &first[0], &again[0], "encoded once")

	_, _, plain, _ = Constant(map[string]any{"secret": "whsec_abc"})().encode()
	assert.False(t, plain, "an answer naming a secret is redacted in the journal")
}

// TestAPageWithMembersIsAnotherPage: a page's Members come after
// has_more, and the same records read with other members (an empty
// page of another business) are never answered with the kept page of
// the first, however often it was read.
func TestAPageWithMembersIsAnotherPage(t *testing.T) {
	tb := store.NewLogTable[*store.UsageEntry]()
	page := func(business string) string {
		p := EncodedPage[*store.UsageEntry]{Key: "activity", Table: tb, Encode: appendUsageItem, Members: Member("businessId", business)}
		body, _, plain, _ := p.encode()
		assert.True(t, plain)
		return string(body)
	}
	for range 3 { // kept once read twice
		assert.Equal(t, `{"activity":[],"has_more":false,"businessId":"b1"}`+"\n", page("b1"))
	}
	assert.Equal(t, `{"activity":[],"has_more":false,"businessId":"b2"}`+"\n", page("b2"))
	assert.Equal(t, `,"note":"a \"quoted\" <b>"`, Member("note", `a "quoted" <b>`), "encoded as every answer is: no HTML escaping")
}
