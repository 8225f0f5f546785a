package mockserver

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// maxWait bounds ?wait= on the long-polling admin routes.
const maxWait = 60 * time.Second

// adminRoute is a route of the admin API: path under /_mock, no key,
// lock and body schema ("" none) as given. Every admin route is made here.
func adminRoute(method, path string, lock lockMode, schema string, h func(*reqCtx) (any, error)) *route {
	return &route{method: method, path: adminPrefix + path, auth: authAdmin, lock: lock, schema: schema, handle: h}
}

func (s *Server) adminRoutes() []*route {
	return []*route{
		adminRoute(http.MethodPost, "/reset", lockNone, "", s.adminReset),
		adminRoute(http.MethodGet, "/clock", lockNone, "", s.adminClock),
		adminRoute(http.MethodPost, "/clock/advance", lockNone, "mockClockAdvance", s.adminAdvance),
		adminRoute(http.MethodGet, "/requests", lockNone, "", s.adminRequests),
		adminRoute(http.MethodGet, "/faults", lockNone, "", s.adminListFaults),
		adminRoute(http.MethodPost, "/faults", lockNone, "mockFault", s.adminAddFault),
		adminRoute(http.MethodDelete, "/faults", lockNone, "", s.adminClearFaults),
	}
}

func (s *Server) adminReset(rc *reqCtx) (any, error) {
	s.resetState()
	return map[string]any{"reset": true}, nil
}

// waitParam parses ?wait= (a Go duration such as 5s, at most a minute).
func (rc *reqCtx) waitParam() (time.Duration, error) {
	v := rc.query("wait")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > maxWait {
		return 0, errInvalidField("wait", "must be a duration such as 5s, at most %s", maxWait)
	}
	return d, nil
}

// longPoll parses ?wait= and returns poll, which runs wait (one of the
// Wait helpers) with a context that ends after that duration; without
// ?wait= poll does nothing. A long-polling admin route parses first and
// polls last, after its other parameters are checked.
func (rc *reqCtx) longPoll() (poll func(wait func(context.Context)), err error) {
	d, err := rc.waitParam()
	if err != nil {
		return nil, err
	}
	return func(wait func(context.Context)) {
		if d > 0 {
			ctx, cancel := context.WithTimeout(rc.r.Context(), d)
			defer cancel()
			wait(ctx)
		}
	}, nil
}

func (s *Server) adminClock(rc *reqCtx) (any, error) {
	return map[string]any{"now": s.clock.Now(), "pending": s.clock.Pending()}, nil
}

func (s *Server) adminAdvance(rc *reqCtx) (any, error) {
	var body struct {
		Seconds float64 `json:"seconds"`
	}
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	now := s.clock.Advance(time.Duration(body.Seconds * float64(time.Second)))
	return map[string]any{"now": now, "pending": s.clock.Pending()}, nil
}

func (s *Server) adminRequests(rc *reqCtx) (any, error) {
	poll, err := rc.longPoll()
	if err != nil {
		return nil, err
	}
	method, path := strings.ToUpper(rc.query("method")), rc.query("path")
	match := func(e *JournalEntry) bool {
		return (method == "" || e.Method == method) && (path == "" || pathMatches(path, e.Path))
	}
	poll(func(ctx context.Context) { s.WaitRequests(ctx, match) })
	return map[string]any{"requests": s.journal.list(match)}, nil
}

func (s *Server) adminListFaults(rc *reqCtx) (any, error) {
	return map[string]any{"faults": s.faults.list()}, nil
}

func (s *Server) adminAddFault(rc *reqCtx) (any, error) {
	var f FaultRule
	if err := rc.decode(&f); err != nil {
		return nil, err
	}
	return created(s.faults.add(f)), nil
}

func (s *Server) adminClearFaults(rc *reqCtx) (any, error) {
	s.faults.reset()
	return map[string]any{"cleared": true}, nil
}

// AddFault installs a fault injection rule and returns it with its id.
func (s *Server) AddFault(f FaultRule) FaultRule { return s.faults.add(f) }

// Faults returns the fault injection rules, with how often each fired.
func (s *Server) Faults() []FaultRule { return s.faults.list() }

// ClearFaults removes every fault injection rule.
func (s *Server) ClearFaults() { s.faults.reset() }
