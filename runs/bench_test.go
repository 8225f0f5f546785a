package runs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/runs"
)

func benchRun(env *testenv.Env, touches int) *runs.CreateParams {
	p := &runs.CreateParams{BusinessID: env.Account.BusinessID, ExternalRef: "bench"}
	for i := range touches {
		ch := runs.ChannelCall
		if i%2 == 1 {
			ch = runs.ChannelSMS
		}
		p.Touches = append(p.Touches, touch(fmt.Sprint("t", i), ch, fmt.Sprintf("+1555123%04d", i), time.Duration(i+1)*time.Minute))
	}
	return p
}

// BenchmarkCreateRun creates a run of 10 touches (validation, planning,
// scheduling) through the SDK.
func BenchmarkCreateRun(b *testing.B) {
	env := testenv.New(b, mockserver.WithRateLimits(false), mockserver.WithStartTime(t0))
	ctx := context.Background()
	p := benchRun(env, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := env.Client.Runs.Create(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTouches runs 100 touches (50 calls, 50 texts) to the end on
// the clock; the reported time is per run, ns/touch is per touch.
func BenchmarkRunTouches(b *testing.B) {
	env := testenv.New(b, mockserver.WithRateLimits(false), mockserver.WithStartTime(t0))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		p := benchRun(env, 100)
		for i := range p.Touches {
			p.Touches[i].ScheduledAt = env.Server.Now().Add(time.Duration(i+1) * time.Minute)
		}
		if _, err := env.Client.Runs.Create(ctx, p); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		env.Server.Advance(3 * time.Hour)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/touch")
}
