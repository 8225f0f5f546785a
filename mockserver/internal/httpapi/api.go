package httpapi

import (
	"context"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// API is the request pipeline of one server: the routes and what the
// pipeline keeps per request (rate limit buckets, idempotency records, the
// journal, fault rules, the usage log). It is an http.Handler.
type API struct {
	*platform.Platform

	// Routes finds a route by path, then method.
	Routes map[string]map[string]*Route
	// Limits are the rate limits' buckets.
	Limits *RateLimiter
	// Idem holds the idempotency records.
	Idem *IdempotencyStore
	// Journal is the request journal.
	Journal *Journal
	// FaultSet holds the fault injection rules.
	FaultSet *FaultSet
	// Usage is the usage log.
	Usage *UsageLog
	// selfDocs caches the documents the server serves about itself.
	selfDocs selfDocuments
	// reads caches the responses of the cached GET routes.
	reads readCache

	// draining ends when Drain is called: open long polls respond.
	draining context.Context
	drain    context.CancelFunc

	cors *corsPolicy // nil: the API serves no cross-origin request
}

// New returns the pipeline of engine p; each part registers how a reset
// drops its state.
func New(p *platform.Platform) *API {
	lim := p.Config.Limits
	a := &API{
		Platform: p,
		Journal:  newJournal(p.Config.JournalSize, lim.JournalBytes),
		Usage:    newUsageLog(lim.UsagePerUser, lim.UsageEntries),
		FaultSet: newFaultSet(p.IDs.Float64),
		Limits:   newRateLimiter(p.Config.RateLimits, p.Config.RateScale, p.LimiterNow),
		Idem:     newIdempotencyStore(lim.IdempotencyRecords, lim.IdempotencyBytes),
		cors:     newCORS(p.Config.CORSOrigins),
	}
	a.draining, a.drain = context.WithCancel(context.Background())
	p.OnReset(a.Usage.Reset)
	p.OnReset(a.Journal.Reset)
	p.OnReset(a.FaultSet.Reset)
	p.OnReset(a.Limits.Reset)
	p.OnReset(a.Idem.Reset)
	p.OnReset(p.OutboxNotifier.Notify)
	return a
}
