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

// TestItemsKeptWithWhatTheTimeShows reads a page of two subscriptions
// whose items show the rotated secrets still signing at the reader's
// time (EncodedPage.ItemDep), at times forward and back (readers of
// other tenants), each read three times: every read shows what that time
// shows, never a kept item or page of another time.
func TestItemsKeptWithWhatTheTimeShows(t *testing.T) {
	base := time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	tb := store.NewTable[*store.Webhook]()
	a := &store.Webhook{Base: store.Base{ID: "a"}, Secrets: []store.WebhookSecret{{}, {Value: "a1", ExpiresAt: at(3)}, {Value: "a2", ExpiresAt: at(1)}}}
	b := &store.Webhook{Base: store.Base{ID: "b"}, Secrets: []store.WebhookSecret{{}, {Value: "b1", ExpiresAt: at(2)}}}
	tb.Insert(a, "biz", base)
	tb.Insert(b, "biz", base)
	signing := func(w *store.Webhook, now time.Time) []string {
		out := []string{}
		for _, s := range w.Secrets {
			if !s.ExpiresAt.IsZero() && s.ExpiresAt.After(now) {
				out = append(out, s.Value)
			}
		}
		return out
	}
	for _, h := range []int{0, 0, 2, 1, 0, 4, 1} {
		now := at(h)
		want := `{"hooks":[`
		for i, w := range []*store.Webhook{a, b} {
			if i > 0 {
				want += ","
			}
			want += string(jsonview.AppendValue(nil, signing(w, now)))
		}
		want += `],"has_more":false}` + "\n"
		for range 3 {
			page := EncodedPage[*store.Webhook]{Key: "hooks", Records: []*store.Webhook{a, b}, Table: tb,
				ItemDep: func(w *store.Webhook) uint64 { return uint64(len(signing(w, now))) },
				Encode:  ViewItem(func(w *store.Webhook) []string { return signing(w, now) })}
			body, _, _, _ := page.encode()
			assert.Equal(t, want, string(body), "at +%dh", h)
		}
	}
}

// TestAPageWithBothDependencesPanics: Dep and ItemDep together are a
// programming error (the items would be kept without Dep), caught on the
// first read rather than served stale.
func TestAPageWithBothDependencesPanics(t *testing.T) {
	page := EncodedPage[*store.Webhook]{Key: "hooks", Table: store.NewTable[*store.Webhook](), Dep: 1,
		ItemDep: func(*store.Webhook) uint64 { return 0 }, Encode: func(b []byte, _ *store.Webhook) []byte { return b }}
	assert.PanicsWithValue(t, "httpapi: an EncodedPage has both Dep and ItemDep: its items would be kept without Dep", func() { page.encode() })
}
