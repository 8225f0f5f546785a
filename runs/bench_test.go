package runs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
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
		phone := fmt.Sprintf("+1555123%04d", i)
		if ch == runs.ChannelSMS {
			_ = env.Server.SetConsent(env.Account.BusinessID, phone, "opted_in")
		}
		p.Touches = append(p.Touches, touch(fmt.Sprint("t", i), ch, phone, time.Duration(i+1)*time.Minute))
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

// BenchmarkRunTouches runs 100 touches (50 calls, 50 texts to numbers that
// opted in, in the daytime) to the end on the clock, checking that every
// touch completed; the reported time is per run, ns/touch is per touch.
func BenchmarkRunTouches(b *testing.B) {
	env := testenv.New(b, mockserver.WithRateLimits(false), mockserver.WithStartTime(t0))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		// Start each run at 14:00 UTC (10:00 in New York), inside the texts' allowed hours.
		now := env.Server.Now()
		env.Server.Advance(now.Truncate(24*time.Hour).Add(38*time.Hour).Sub(now) % (24 * time.Hour))
		p := benchRun(env, 100)
		for i := range p.Touches {
			p.Touches[i].ScheduledAt = env.Server.Now().Add(time.Duration(i+1) * time.Minute)
		}
		run, err := env.Client.Runs.Create(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		env.Server.Advance(3 * time.Hour)
		b.StopTimer()
		if run, err = env.Client.Runs.Get(ctx, run.ID); err != nil || run.TouchCounts[runs.StatusCompleted] != 100 {
			b.Fatal(err, run.TouchCounts)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/touch")
}
