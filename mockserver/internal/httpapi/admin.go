package httpapi

import (
	"context"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/openapi"
)

// maxWait bounds ?wait= on the long-polling admin routes.
const maxWait = 60 * time.Second

// adminReset drops all state and provisions the seed accounts again (the
// binary's demo account, with the key it printed), unless ?seed=none.
func (s *API) adminReset(rc *Ctx) (any, error) {
	reseed := true
	switch rc.Query("seed") {
	case "":
	case "none":
		reseed = false
	default:
		return nil, InvalidField("seed", "must be none (leave the server empty), or absent (provision the seed accounts again)")
	}
	n := s.ResetState(reseed)
	return map[string]any{"reset": true, "seed_accounts": n}, nil
}

// adminHealth answers once the server is serving: its status and version.
func (s *API) adminHealth(rc *Ctx) (any, error) {
	return map[string]any{"status": "ok", "version": Version()}, nil
}

// adminOpenAPI serves the admin API's own OpenAPI document (admin.yaml,
// self-contained), with this server first among its servers.
func (s *API) adminOpenAPI(rc *Ctx) (any, error) {
	b, err := openapi.BundledAdmin(rc.SelfURL())
	if err != nil {
		return nil, err
	}
	return &RawBody{ContentType: "application/yaml", Body: b}, nil
}

// SelfURL is the root URL (scheme and host, no path) under which the
// request reached the server, for documents that name the server itself.
func (rc *Ctx) SelfURL() string {
	scheme := "http"
	if rc.Request.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + rc.Request.Host
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
