package analytics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func TestPercents(t *testing.T) {
	assert.Equal(t, 0.0, percent(3, 0), "no whole: 0")
	assert.Equal(t, 33.33, percent(1, 3))
	assert.Equal(t, 66.67, percent(2, 3))
	assert.Equal(t, 100.0, percent(4, 4))

	assert.Equal(t, 0.0, percentChange(0, 0))
	assert.Equal(t, 100.0, percentChange(5, 0), "from nothing: 100")
	assert.Equal(t, -100.0, percentChange(0, 5))
	assert.Equal(t, 50.0, percentChange(3, 2))
	assert.Equal(t, -33.33, percentChange(2, 3))
}

func TestBucketStart(t *testing.T) {
	wed := time.Date(2026, 3, 11, 23, 59, 0, 0, time.UTC)
	assert.Equal(t, time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC), bucketStart(wed, "day"))
	assert.Equal(t, time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC), bucketStart(wed, "week"), "the Monday")
	sun := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	assert.Equal(t, time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC), bucketStart(sun, "week"), "a Sunday is the week's last day")
	local := time.Date(2026, 3, 11, 22, 0, 0, 0, time.FixedZone("EST", -5*3600))
	assert.Equal(t, time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC), bucketStart(local, "day"), "UTC days")
}

func TestCallAggregates(t *testing.T) {
	a := callAgg{statuses: map[string]int{}}
	for _, c := range []*store.Call{
		{Status: store.CallCompleted, Duration: 61},
		{Status: store.CallEnded, Duration: 30},
		{Status: store.CallFailed},
	} {
		a.add(c)
	}
	assert.Equal(t, 3, a.total)
	assert.Equal(t, 2, a.completed, "completed outbound and ended inbound calls connected")
	assert.Equal(t, 45.5, a.avg(), "the average of the calls with a duration")
	assert.Equal(t, map[string]int{store.CallCompleted: 1, store.CallEnded: 1, store.CallFailed: 1}, a.statuses)
	s := a.stats()
	assert.Equal(t, 91, s.TotalDurationSeconds)
	assert.Equal(t, 0.0, (&callAgg{}).avg())
}
