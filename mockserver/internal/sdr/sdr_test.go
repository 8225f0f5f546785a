package sdr

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	sdrapi "github.com/voiceagent/voiceagent-go/sdr"
)

// TestSegmentNamesAreTheSDKs keeps the engine's segments and the SDK's
// segment constants the same names in the same order.
func TestSegmentNamesAreTheSDKs(t *testing.T) {
	assert.Equal(t, []sdrapi.Segment{
		sdrapi.SegmentSpeedToLead, sdrapi.SegmentFreshDemoCaller, sdrapi.SegmentWarmDemoCaller,
		sdrapi.SegmentCoolingDemo, sdrapi.SegmentNewTrialStuck, sdrapi.SegmentTrialGoingDark,
		sdrapi.SegmentTrialEnding, sdrapi.SegmentContactedNoReply, sdrapi.SegmentExhausted,
		sdrapi.SegmentChurnedRecent, sdrapi.SegmentCold, sdrapi.SegmentManualReview,
	}, val.Strings[sdrapi.Segment](segmentNames[:]))
	for i, name := range segmentNames {
		g, ok := parseSegment(name)
		assert.True(t, ok, name)
		assert.Equal(t, segment(i), g)
	}
	_, ok := parseSegment("hot")
	assert.False(t, ok)

	var c segmentCounts
	c[segCold] = 3
	v := c.view()
	assert.Len(t, v, int(numSegments), "every segment listed")
	assert.Equal(t, 3, v[sdrapi.SegmentCold])
	assert.Equal(t, 0, v[sdrapi.SegmentManualReview])
}

func TestInBusinessHours(t *testing.T) {
	b := &store.Business{Timezone: "America/New_York"}
	at := func(hour int) time.Time { return time.Date(2026, 3, 10, hour+4, 30, 0, 0, time.UTC) } // EDT is UTC-4
	for _, tc := range []struct {
		start, end, hour int
		want             bool
	}{
		{9, 17, 9, true}, {9, 17, 16, true}, {9, 17, 17, false}, {9, 17, 8, false},
		{22, 6, 23, true}, {22, 6, 3, true}, {22, 6, 6, false}, {22, 6, 12, false}, // overnight
		{0, 0, 3, true}, {8, 8, 20, true}, // equal: all day
	} {
		cfg := &store.SDRConfig{HoursStart: tc.start, HoursEnd: tc.end}
		assert.Equal(t, tc.want, inBusinessHours(cfg, b, at(tc.hour)), "%d-%d at %d", tc.start, tc.end, tc.hour)
	}
}

func TestContactedNoReplyRotatesChannels(t *testing.T) {
	assert.Equal(t, []string{store.SDRCall, store.SDRSMS, store.SDREmail}, nextChannels(segContactedNoReply, nil))
	assert.Equal(t, []string{store.SDREmail, store.SDRCall, store.SDRSMS},
		nextChannels(segContactedNoReply, &store.SDRLead{LastChannel: store.SDRSMS}))
	assert.Equal(t, []string{store.SDRCall, store.SDRSMS, store.SDREmail},
		nextChannels(segContactedNoReply, &store.SDRLead{LastChannel: store.SDREmail}))
	assert.Equal(t, segmentChannels[segCoolingDemo], nextChannels(segCoolingDemo, &store.SDRLead{LastChannel: store.SDRSMS}),
		"other segments keep their order")
}

// TestTopEvalsKeepsThePipelineOrder checks the heap against a full sort:
// the first k by score, then newest.
func TestTopEvalsKeepsThePipelineOrder(t *testing.T) {
	base := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	var all []sdrEval
	for i := range 50 {
		l := &store.Lead{}
		l.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		all = append(all, sdrEval{lead: l, score: (i * 37) % 11})
	}
	for _, k := range []int{0, 1, 7, 50, 80} {
		top := &topEvals{k: k}
		for _, e := range all {
			top.offer(e)
		}
		got := top.sorted()
		require.Len(t, got, min(k, len(all)))
		for i := 1; i < len(got); i++ {
			assert.True(t, evalBefore(&got[i-1], &got[i]), "k=%d: %d before %d", k, i-1, i)
		}
		kept := 0
		for _, e := range all {
			if len(got) > 0 && !evalBefore(&got[len(got)-1], &e) {
				kept++
			}
		}
		assert.Equal(t, len(got), kept, "k=%d: exactly the first k", k)
	}
}

// TestConfigViewOfDefaults: a business without a stored configuration
// reads the defaults, not configured, with null stamps; a stored one shows
// its stamps.
func TestConfigViewOfDefaults(t *testing.T) {
	tx := platform.New(platform.Config{}).WriteTx()
	defer tx.End()
	b := &store.Business{Name: "Acme", Timezone: "Europe/Paris"}
	b.ID = "22222222-2222-4222-8222-222222222222"
	tx.InsertBusiness(b, time.Time{})

	raw, err := json.Marshal(SDRConfigView(tx, SDRConfigOf(tx, b.ID)))
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, map[string]any{
		"businessId": b.ID, "enabled": false, "min_touch_gap_hours": 24.0, "max_touches": 5.0,
		"auto_call": false, "auto_email": false, "auto_sms": false, "sdr_agent_id": nil,
		"business_hours_start": 9.0, "business_hours_end": 17.0, "email_from_account_id": nil,
		"configured": false, "timezone": "Europe/Paris", "next_run_at": nil, "last_run_at": nil,
		"last_run_trigger": nil, "created_at": nil, "updated_at": nil,
	}, got)

	cfg := SDRConfigOf(tx, b.ID)
	cfg.CreatedAt = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	cfg.UpdatedAt = cfg.CreatedAt
	tx.SDRConfigs[b.ID] = cfg
	v := SDRConfigView(tx, cfg)
	assert.True(t, v.Configured)
	require.NotNil(t, v.CreatedAt)
	cfg.UpdatedAt = cfg.UpdatedAt.Add(time.Hour)
	assert.True(t, v.UpdatedAt.Equal(cfg.CreatedAt), "the view holds a copy of the stamps")
}
