package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// MaxWait bounds ?wait= on the long-polling admin routes; a long poll may
// hold its connection LongPollGrace longer than its wait (the server's read
// and write timeouts are extended that far for it).
const (
	MaxWait       = 60 * time.Second
	LongPollGrace = 10 * time.Second
)

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
	if err != nil || d < 0 || d > MaxWait {
		return 0, InvalidField("wait", "must be a duration such as 5s, at most %s", MaxWait)
	}
	return d, nil
}

// LongPoll parses ?wait= and returns poll, which runs wait (one of the
// Wait helpers) with a context that ends after that duration, when the
// client goes away, or when the server drains (Drain: it is shutting
// down); without ?wait= poll does nothing. A long-polling admin route
// parses first and polls last, after its other parameters are checked.
//
// A long poll is the one request allowed past the server's read and write
// timeouts: poll moves the connection's deadlines to the wait plus
// LongPollGrace (so at most 70 s).
func (rc *Ctx) LongPoll() (poll func(wait func(context.Context)), err error) {
	d, err := rc.waitParam()
	if err != nil {
		return nil, err
	}
	return func(wait func(context.Context)) {
		if d <= 0 {
			return
		}
		if rc.writer != nil {
			ExtendDeadlines(rc.writer, d)
		}
		ctx, cancel := context.WithTimeout(rc.Request.Context(), d)
		defer cancel()
		stop := context.AfterFunc(rc.API.draining, cancel)
		defer stop()
		wait(ctx)
	}, nil
}

// ExtendDeadlines lets the request answered by w take d plus
// LongPollGrace from now, past the server's read and write timeouts: a
// long poll, or the latency of a fault. (Without its read deadline moved,
// the server's read timeout would also end the request's context.) Writers
// without deadlines (httptest's recorder) have nothing to extend.
func ExtendDeadlines(w http.ResponseWriter, d time.Duration) {
	c := http.NewResponseController(w)
	deadline := time.Now().Add(d + LongPollGrace)
	_ = c.SetReadDeadline(deadline)
	_ = c.SetWriteDeadline(deadline)
}

// Drain makes every open long poll answer now, with what it has, and
// later ones answer at once: the server is shutting down
// (http.Server.RegisterOnShutdown), and its shutdown waits for no poll.
func (s *API) Drain() { s.drain() }

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

func (s *API) adminRequests(rc *Ctx) (any, error) {
	poll, err := rc.LongPoll()
	if err != nil {
		return nil, err
	}
	method, path := strings.ToUpper(rc.Query("method")), rc.Query("path")
	match := func(e *JournalEntry) bool {
		return (method == "" || e.Method == method) && (path == "" || pathMatches(path, e.Path))
	}
	poll(func(ctx context.Context) { s.WaitRequests(ctx, match) })
	return map[string]any{"requests": s.Journal.List(match)}, nil
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
