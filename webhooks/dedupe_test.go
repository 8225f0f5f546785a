package webhooks

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMemoryDedupeStoreProtocol(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryDedupeStore(0, 0)
	claim := func(id string) ClaimResult {
		r, err := s.Claim(ctx, id)
		require.NoError(t, err)
		return r
	}

	assert.Equal(t, Claimed, claim("a"))
	assert.Equal(t, InProgress, claim("a"))
	require.NoError(t, s.Release(ctx, "a"))
	assert.Equal(t, Claimed, claim("a"), "a released id is claimable again")
	require.NoError(t, s.Complete(ctx, "a"))
	assert.Equal(t, Done, claim("a"))
	require.NoError(t, s.Release(ctx, "a"))
	assert.Equal(t, Done, claim("a"), "release never forgets a processed id")

	// Complete without claim, and twice.
	require.NoError(t, s.Complete(ctx, "b"))
	require.NoError(t, s.Complete(ctx, "b"))
	assert.Equal(t, Done, claim("b"))
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, "claimed in_progress done unknown", fmt.Sprint(Claimed, InProgress, Done, ClaimResult(0)))
}

func TestMemoryDedupeStoreTTL(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	s := NewMemoryDedupeStore(time.Hour, 0)
	s.now = func() time.Time { return now }

	_, _ = s.Claim(ctx, "a")
	require.NoError(t, s.Complete(ctx, "a"))
	now = now.Add(30 * time.Minute)
	_, _ = s.Claim(ctx, "b")
	require.NoError(t, s.Complete(ctx, "b"))
	_, _ = s.Claim(ctx, "pending")

	now = now.Add(30*time.Minute - time.Nanosecond)
	r, _ := s.Claim(ctx, "a")
	assert.Equal(t, Done, r, "just before the TTL")
	now = now.Add(time.Nanosecond)
	r, _ = s.Claim(ctx, "a")
	assert.Equal(t, Claimed, r, "at the TTL the id is forgotten")
	r, _ = s.Claim(ctx, "b")
	assert.Equal(t, Done, r)

	now = now.Add(100 * time.Hour)
	assert.Equal(t, 2, s.Len(), "claims in progress never expire: a and pending")
	r, _ = s.Claim(ctx, "pending")
	assert.Equal(t, InProgress, r)
}

func TestMemoryDedupeStoreBounded(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryDedupeStore(time.Hour, 100)
	for i := 0; i < 1000; i++ {
		id := fmt.Sprint("id-", i)
		r, err := s.Claim(ctx, id)
		require.NoError(t, err)
		require.Equal(t, Claimed, r)
		require.NoError(t, s.Complete(ctx, id))
	}
	assert.Equal(t, 100, s.Len())
	r, _ := s.Claim(ctx, "id-999")
	assert.Equal(t, Done, r, "the newest are kept")
	r, _ = s.Claim(ctx, "id-0")
	assert.Equal(t, Claimed, r, "the oldest are forgotten")
}

func TestMemoryDedupeStoreConcurrentClaim(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryDedupeStore(0, 0)
	var claimed atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, _ := s.Claim(ctx, "same"); r == Claimed {
				claimed.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), claimed.Load())
}
