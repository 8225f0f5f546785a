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
		adminRoute(http.MethodPost, "/accounts", lockWrite, "mockAccount", s.adminAccounts),
		adminRoute(http.MethodGet, "/outbox", lockNone, "", s.adminOutbox),
		adminRoute(http.MethodGet, "/clock", lockNone, "", s.adminClock),
		adminRoute(http.MethodPost, "/clock/advance", lockNone, "mockClockAdvance", s.adminAdvance),
		adminRoute(http.MethodGet, "/requests", lockNone, "", s.adminRequests),
		adminRoute(http.MethodGet, "/faults", lockNone, "", s.adminListFaults),
		adminRoute(http.MethodPost, "/faults", lockNone, "mockFault", s.adminAddFault),
		adminRoute(http.MethodDelete, "/faults", lockNone, "", s.adminClearFaults),
	}
}

func (s *Server) adminReset(rc *reqCtx) (any, error) {
	s.Reset()
	return map[string]any{"reset": true}, nil
}

func (s *Server) adminAccounts(rc *reqCtx) (any, error) {
	var opts AccountOptions
	if len(strings.TrimSpace(string(rc.body))) > 0 {
		if err := rc.decode(&opts); err != nil {
			return nil, err
		}
	}
	for _, sc := range opts.Scopes {
		if !isScope(sc) && sc != scopeWildcard {
			return nil, errInvalidField("scopes", "unknown scope %q", sc)
		}
	}
	return created(s.newAccountLocked(opts)), nil
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

// OutboxMessage is an email or SMS the platform sent to a person outside the
// API: signup codes and links, SDR emails, owner notifications.
type OutboxMessage struct {
	ID        string    `json:"id"`
	Channel   string    `json:"channel"`
	To        string    `json:"to"`
	From      string    `json:"from"`
	Subject   string    `json:"subject,omitempty"`
	Body      string    `json:"body"`
	OTPCode   string    `json:"otp_code,omitempty"`
	Link      string    `json:"link,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Outbox returns the messages sent to an address or number ("" for all),
// oldest first.
func (s *Server) Outbox(to string) []OutboxMessage {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.outboxLocked(to)
}

func (s *Server) outboxLocked(to string) []OutboxMessage {
	out := []OutboxMessage{}
	for _, m := range s.st.Outbox.Owned("outbox") {
		if to == "" || strings.EqualFold(m.To, to) {
			out = append(out, OutboxMessage{
				ID: m.ID, Channel: m.Channel, To: m.To, From: m.From, Subject: m.Subject,
				Body: m.Body, OTPCode: m.OTPCode, Link: m.Link, CreatedAt: m.CreatedAt,
			})
		}
	}
	return out
}

// WaitOutbox waits until a message to the address matches (nil: any), or
// ctx ends, and returns the newest matching one.
func (s *Server) WaitOutbox(ctx context.Context, to string, match func(OutboxMessage) bool) (OutboxMessage, bool) {
	var found OutboxMessage
	ok := s.outbox.Wait(ctx, func() bool {
		msgs := s.Outbox(to)
		for i := len(msgs) - 1; i >= 0; i-- {
			if match == nil || match(msgs[i]) {
				found = msgs[i]
				return true
			}
		}
		return false
	})
	return found, ok
}

func (s *Server) adminOutbox(rc *reqCtx) (any, error) {
	poll, err := rc.longPoll()
	if err != nil {
		return nil, err
	}
	to := rc.query("to")
	poll(func(ctx context.Context) { s.WaitOutbox(ctx, to, nil) })
	return map[string]any{"messages": s.Outbox(to)}, nil
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
	now := s.Advance(time.Duration(body.Seconds * float64(time.Second)))
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
