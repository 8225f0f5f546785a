package httpapi

import (
	"context"
	"math"
	"time"

	"github.com/google/uuid"
)

// maxWait bounds ?wait= on the long-polling admin routes.
const maxWait = 60 * time.Second

func (s *API) adminReset(rc *Ctx) (any, error) {
	s.ResetState()
	return map[string]any{"reset": true}, nil
}

// waitParam parses ?wait= (a Go duration such as 5s, at most a minute).
func (rc *Ctx) waitParam() (time.Duration, error) {
	v := rc.Query("wait")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > maxWait {
		return 0, InvalidField("wait", "must be a duration such as 5s, at most %s", maxWait)
	}
	return d, nil
}

// LongPoll parses ?wait= and returns poll, which runs wait (one of the
// Wait helpers) with a context that ends after that duration; without
// ?wait= poll does nothing. A long-polling admin route parses first and
// polls last, after its other parameters are checked.
func (rc *Ctx) LongPoll() (poll func(wait func(context.Context)), err error) {
	d, err := rc.waitParam()
	if err != nil {
		return nil, err
	}
	return func(wait func(context.Context)) {
		if d > 0 {
			ctx, cancel := context.WithTimeout(rc.Request.Context(), d)
			defer cancel()
			wait(ctx)
		}
	}, nil
}

func (s *API) adminClock(rc *Ctx) (any, error) {
	return map[string]any{"now": s.Clock.Now(), "pending": s.Clock.Pending()}, nil
}

func (s *API) adminAdvance(rc *Ctx) (any, error) {
	var body struct {
		Seconds float64 `json:"seconds"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	now := s.Clock.Advance(time.Duration(body.Seconds * float64(time.Second)))
	return map[string]any{"now": now, "pending": s.Clock.Pending()}, nil
}

// JournalPage is the answer of GET /_mock/requests.
type JournalPage struct {
	// Requests are the matching entries, oldest first: the first Limit
	// after After when it is given, the newest Limit otherwise.
	Requests []JournalEntry `json:"requests"`
	// Count is how many kept entries match, however many are listed.
	Count int `json:"count"`
	// LatestSeq is the Seq of the newest entry (0: none yet), to read or
	// wait for what comes after it.
	LatestSeq int64 `json:"latest_seq"`
}

// journalLimit is how many entries GET /_mock/requests lists by default.
const journalLimit = 100

func (s *API) adminRequests(rc *Ctx) (any, error) {
	if err := rc.OnlyQuery("after", "business_id", "limit", "method", "path", "status", "wait"); err != nil {
		return nil, err
	}
	poll, err := rc.LongPoll()
	if err != nil {
		return nil, err
	}
	f := RequestFilter{Method: rc.Query("method"), Path: rc.Query("path"), BusinessID: rc.Query("business_id")}
	if f.BusinessID != "" && uuid.Validate(f.BusinessID) != nil {
		return nil, InvalidField("business_id", "must be a UUID")
	}
	if f.Status, err = rc.IntQuery("status", 0, 100, 599); err != nil {
		return nil, err
	}
	after, err := rc.IntQuery("after", 0, 0, math.MaxInt)
	if err != nil {
		return nil, err
	}
	limit, err := rc.IntQuery("limit", journalLimit, 0, max(s.Journal.Size(), journalLimit))
	if err != nil {
		return nil, err
	}
	f.After = int64(after)
	forward := rc.Query("after") != ""
	if !forward && rc.Query("wait") != "" {
		// Waiting is for what comes next: after the newest entry of now.
		f.After, forward = s.Journal.Latest(), true
	}
	poll(func(ctx context.Context) { s.WaitRequests(ctx, f.Match) })
	entries, count := s.Journal.Find(f.Match, limit, forward)
	return JournalPage{Requests: entries, Count: count, LatestSeq: s.Journal.Latest()}, nil
}

func (s *API) adminListFaults(rc *Ctx) (any, error) {
	return map[string]any{"faults": s.FaultSet.List()}, nil
}

func (s *API) adminAddFault(rc *Ctx) (any, error) {
	var f FaultRule
	if err := rc.Decode(&f); err != nil {
		return nil, err
	}
	return Created(s.FaultSet.add(f)), nil
}

func (s *API) adminClearFaults(rc *Ctx) (any, error) {
	s.FaultSet.Reset()
	return map[string]any{"cleared": true}, nil
}

// AddFault installs a fault injection rule and returns it with its id.
func (s *API) AddFault(f FaultRule) FaultRule { return s.FaultSet.add(f) }

// Faults returns the fault injection rules, with how often each fired.
func (s *API) Faults() []FaultRule { return s.FaultSet.List() }

// ClearFaults removes every fault injection rule.
func (s *API) ClearFaults() { s.FaultSet.Reset() }
