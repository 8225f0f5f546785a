package httpapi

import (
	"context"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// MaxWait bounds ?wait= on the long-polling admin routes; a long poll may
// hold its connection LongPollGrace longer than its wait (the server's read
// and write timeouts are extended that far for it).
const (
	MaxWait       = 60 * time.Second
	LongPollGrace = 10 * time.Second
)

// adminReset drops all state and provisions the seed accounts again (the
// binary's demo account, with the key it printed), unless ?seed=none.
func (s *API) adminReset(rc *Ctx) (any, error) {
	reseed := true
	switch rc.Query("seed") {
	case "":
	case "none":
		reseed = false
	default:
		return nil, domain.InvalidField("seed", "must be none (leave the server empty), or absent (provision the seed accounts again)")
	}
	n := s.ResetState(reseed)
	return map[string]any{"reset": true, "seed_accounts": n}, nil
}

// adminHealth responds once the server is serving: its status and version.
func (s *API) adminHealth(rc *Ctx) (any, error) {
	return map[string]any{"status": "ok", "version": Version()}, nil
}

// adminOpenAPI serves the admin API's own OpenAPI document (admin.yaml,
// self-contained), with this server first among its servers.
func (s *API) adminOpenAPI(rc *Ctx) (any, error) {
	return rc.SelfDocument("admin.yaml", "application/yaml", rc.SelfURL(), openapi.BundledAdmin)
}

// Index is what GET /, GET /api and GET /_mock answer a program: where the
// API, its OpenAPI documents, the dashboard and the health check are, as
// absolute URLs of the server the request reached.
type Index struct {
	Name string `json:"name"`
	// Version is the server's version (Version).
	Version string `json:"version"`
	// API is the API's base URL (ending with /api).
	API string `json:"api"`
	// OpenAPI is the API's OpenAPI document; AdminOpenAPI the admin API's.
	OpenAPI      string `json:"openapi"`
	AdminAPI     string `json:"admin_api"`
	AdminOpenAPI string `json:"admin_openapi"`
	// Dashboard is the web dashboard; Health the health check.
	Dashboard string `json:"dashboard"`
	Health    string `json:"health"`
}

// dashboardPath is where the web dashboard is served.
const dashboardPath = AdminPrefix + "/ui"

// adminIndex answers the first URLs a person or a tool tries: a browser
// (a request that accepts text/html) is redirected to the dashboard, any
// other client gets the Index.
func (s *API) adminIndex(rc *Ctx) (any, error) {
	self := rc.SelfURL()
	if acceptsHTML(rc.Request.Header.Get("Accept")) {
		return &Respond{Status: http.StatusFound, Header: http.Header{"Location": {dashboardPath}},
			Body: map[string]string{"location": dashboardPath}}, nil
	}
	return Index{
		Name: "voiceagent mock server", Version: Version(),
		API: self + APIPrefix, OpenAPI: self + APIPrefix + "/openapi.yaml",
		AdminAPI: self + AdminPrefix, AdminOpenAPI: self + AdminPrefix + "/openapi.yaml",
		Dashboard: self + dashboardPath, Health: self + AdminPrefix + "/health",
	}, nil
}

// acceptsHTML reports whether an Accept header lists text/html (with a
// quality above 0): what a browser sends for a page.
func acceptsHTML(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "text/html" {
			continue
		}
		if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q <= 0 {
			return false
		}
		return true
	}
	return false
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
	if err != nil || d < 0 || d > MaxWait {
		return 0, domain.InvalidField("wait", "must be a duration such as 5s, at most %s", MaxWait)
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

// ExtendDeadlines lets the request served by w take d plus
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

// Drain prepares the pipeline for the server's shutdown
// (http.Server.RegisterOnShutdown), so that every request in flight is
// answered at once: every open long poll responds now, with what it has,
// and later ones respond at once; a fault's latency ends (the request goes
// on as the rule says); a body still arriving stops being read, and its
// request is answered 503 service_unavailable.
func (s *API) Drain() { s.drain() }

// TenantOfBusiness returns the tenant that owns a business: 400 when id is
// not a UUID, 404 when no such business exists.
func (s *API) TenantOfBusiness(id string) (string, error) {
	tx := s.ReadTx()
	defer tx.End()
	return TenantIn(tx, id)
}

// TenantIn is TenantOfBusiness with the state at hand.
func TenantIn(tx *platform.Tx, id string) (string, error) {
	if !IsUUID(id) {
		return "", domain.InvalidField("business_id", "must be a UUID")
	}
	t := tx.TenantOf(id)
	if t == "" {
		return "", domain.NotFound("business not found: " + id)
	}
	return t, nil
}

// clockView is the time of tenant ("" the base).
func (s *API) clockView(tenant, businessID string) admin.Clock {
	if tenant == "" {
		return admin.Clock{Now: s.Clocks.Base().Now(), Pending: s.Clocks.Pending()}
	}
	c := s.Clocks.Of(tenant)
	return admin.Clock{Now: c.Now(), BusinessID: businessID, Pending: c.Pending()}
}

func (s *API) adminClock(rc *Ctx) (any, error) {
	var tenant string
	id := rc.Query("business_id")
	if id != "" {
		var err error
		if tenant, err = s.TenantOfBusiness(id); err != nil {
			return nil, err
		}
	}
	return s.clockView(tenant, id), nil
}

// Schedule returns the pending work of the tenant owning businessID: 400
// when it is not a UUID, 404 when no such business exists.
func (s *API) Schedule(businessID string) (admin.Schedule, error) {
	tenant, err := s.TenantOfBusiness(businessID)
	if err != nil {
		return admin.Schedule{}, err
	}
	c := s.Clocks.Of(tenant)
	return admin.Schedule{BusinessID: businessID, Now: c.Now(), Tasks: ScheduledTasks(c.Tasks())}, nil
}

// ScheduledTasks returns tasks as the schedule shows them.
func ScheduledTasks(tasks []clock.Task) []admin.ScheduledTask {
	out := make([]admin.ScheduledTask, len(tasks))
	for i, t := range tasks {
		out[i] = admin.ScheduledTask{At: t.At.UTC(), Kind: t.Kind, SubjectID: t.Subject, N: t.N}
	}
	return out
}

// TaskOf returns the clock's task t shows.
func TaskOf(t admin.ScheduledTask) clock.Task {
	return clock.Task{At: t.At, Kind: t.Kind, Subject: t.SubjectID, N: t.N}
}

func (s *API) adminSchedule(rc *Ctx) (any, error) {
	id, err := rc.RequireQuery("business_id")
	if err != nil {
		return nil, err
	}
	return s.Schedule(id)
}

func (s *API) adminAdvance(rc *Ctx) (any, error) {
	var body struct {
		Seconds    float64 `json:"seconds"`
		BusinessID string  `json:"business_id"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	d := time.Duration(body.Seconds * float64(time.Second))
	if body.BusinessID == "" {
		if _, err := s.Clocks.TryAdvance(d); err != nil {
			return nil, domain.InvalidField("seconds", "%v", err)
		}
		return s.clockView("", ""), nil
	}
	tenant, err := s.TenantOfBusiness(body.BusinessID)
	if err != nil {
		return nil, err
	}
	if _, err := s.Clocks.Of(tenant).TryAdvance(d); err != nil {
		return nil, domain.InvalidField("seconds", "%v", err)
	}
	return s.clockView(tenant, body.BusinessID), nil
}

// Tenants returns every tenant, oldest first.
func (s *API) Tenants() []admin.Tenant {
	tx := s.ReadTx()
	defer tx.End()
	out := []admin.Tenant{}
	for _, id := range tx.Tenants() {
		b, ok := tx.Businesses.Get(id)
		if !ok {
			continue
		}
		v := admin.Tenant{BusinessID: id, BusinessName: b.Name}
		if u, ok := tx.Users.Get(b.OwnerUserID); ok {
			v.Email = u.Email
		}
		c := s.Clocks.Of(id)
		v.Now, v.Pending = c.Now(), c.Pending()
		out = append(out, v)
	}
	return out
}

func (s *API) adminTenants(rc *Ctx) (any, error) {
	return map[string]any{"tenants": s.Tenants()}, nil
}

// JournalPage is the response of GET /_mock/requests.
type JournalPage struct {
	// Requests are the matching entries, oldest first: the first Limit
	// after After when it is given, the newest Limit otherwise, as many
	// of them as fit in MaxJournalPageBytes (at least one).
	Requests []admin.JournalEntry `json:"requests"`
	// Count is how many kept entries match, however many are listed.
	Count int `json:"count"`
	// LatestSeq is the Seq of the newest entry (0: none yet), to read or
	// wait for what comes after it.
	LatestSeq int64 `json:"latest_seq"`
}

// Bounds of a response of GET /_mock/requests: by default it lists 100
// entries; limit may ask for up to MaxJournalLimit, and the entries listed
// count at most MaxJournalPageBytes (admin.JournalEntry.Bytes), so that no
// response holds more than a few MiB however a client asks.
const (
	journalLimit        = 100
	MaxJournalLimit     = 1000
	MaxJournalPageBytes = 4 << 20
)

func (s *API) adminRequests(rc *Ctx) (any, error) {
	poll, err := rc.LongPoll()
	if err != nil {
		return nil, err
	}
	f := admin.RequestFilter{Method: rc.Query("method"), Path: rc.Query("path")}
	if id := rc.Query("business_id"); id != "" {
		// Any business of a tenant selects the tenant's requests.
		if f.BusinessID, err = s.TenantOfBusiness(id); err != nil {
			return nil, err
		}
	}
	if f.Status, err = rc.IntQuery("status", 0, 100, 599); err != nil {
		return nil, err
	}
	after, err := rc.IntQuery("after", 0, 0, math.MaxInt)
	if err != nil {
		return nil, err
	}
	limit, err := rc.IntQuery("limit", journalLimit, 0, MaxJournalLimit)
	if err != nil {
		return nil, err
	}
	f.After = int64(after)
	forward := rc.Query("after") != ""
	if !forward && rc.Query("wait") != "" {
		// Waiting is for what comes next: after the newest entry of now.
		f.After, forward = s.Journal.Latest(), true
	}
	bodies := rc.Query("bodies")
	if bodies != "" && bodies != "text" {
		return nil, domain.InvalidField("bodies", "must be text (every body as a string) or absent")
	}
	poll(func(ctx context.Context) { s.WaitRequests(ctx, f.Match) })
	entries, count := s.Journal.Find(f.Match, limit, forward, MaxJournalPageBytes)
	if bodies == "text" {
		texts := make([]textEntry, len(entries))
		for i := range entries {
			texts[i] = textEntry(entries[i])
		}
		return textJournalPage{Requests: texts, Count: count, LatestSeq: s.Journal.Latest()}, nil
	}
	return JournalPage{Requests: entries, Count: count, LatestSeq: s.Journal.Latest()}, nil
}

// textJournalPage is JournalPage with every body shown as a string
// (?bodies=text).
type textJournalPage struct {
	Requests  []textEntry `json:"requests"`
	Count     int         `json:"count"`
	LatestSeq int64       `json:"latest_seq"`
}

// textEntry is a journal entry whose bodies encode as strings, byte for
// byte, whatever their type.
type textEntry admin.JournalEntry

// textMessage is a journaled message encoded member by member: its body a
// string.
type textMessage admin.JournalMessage

// MarshalJSON encodes the entry as admin.JournalEntry does, with its
// request and response as textMessage.
func (e textEntry) MarshalJSON() ([]byte, error) {
	type fields admin.JournalEntry
	return jsonview.EncodeJSON(struct {
		fields
		Request  textMessage `json:"request"`
		Response textMessage `json:"response"`
	}{fields(e), textMessage(e.Request), textMessage(e.Response)})
}

func (s *API) adminListFaults(rc *Ctx) (any, error) {
	return map[string]any{"faults": s.FaultSet.List()}, nil
}

func (s *API) adminAddFault(rc *Ctx) (any, error) {
	var f admin.FaultRule
	if err := rc.Decode(&f); err != nil {
		return nil, err
	}
	f, err := s.AddFault(f)
	if err != nil {
		return nil, err
	}
	return Created(f), nil
}

// adminClearFaults removes one rule (?id=) or every rule.
func (s *API) adminClearFaults(rc *Ctx) (any, error) {
	if id, ok := rc.Request.URL.Query()["id"]; ok {
		if len(id) != 1 || id[0] == "" {
			return nil, domain.New(voiceagent.CodeBadRequest, "the id query parameter is empty: send ?id=<fault id>, or leave it out to remove every rule")
		}
		if !s.FaultSet.Remove(id[0]) {
			return nil, domain.NotFound("fault rule not found: " + id[0])
		}
		return map[string]any{"removed": id[0]}, nil
	}
	s.FaultSet.Reset()
	return map[string]any{"cleared": true}, nil
}

// adminClearRateLimits drops rate-limit counters: one client IP's
// (?client_ip=), a tenant's keys' and sessions' (?business_id=), or every
// counter (neither).
func (s *API) adminClearRateLimits(rc *Ctx) (any, error) {
	ip, id := rc.Query("client_ip"), rc.Query("business_id")
	switch {
	case ip != "" && id != "":
		return nil, domain.Invalid("give client_ip or business_id, not both")
	case ip != "":
		a, err := netip.ParseAddr(ip)
		if err != nil {
			return nil, domain.InvalidField("client_ip", "must be an IP address, such as 127.0.0.1 or ::1")
		}
		n := s.Limits.Clear(map[string]bool{IPCaller(a.String()): true})
		return map[string]any{"cleared": n, "client_ip": ip}, nil
	case id != "":
		tenant, err := TenantIn(rc.Tx, id)
		if err != nil {
			return nil, err
		}
		n := s.Limits.Clear(TenantCallers(rc.Tx, tenant))
		return map[string]any{"cleared": n, "business_id": id}, nil
	}
	s.Limits.Mu.Lock()
	n := len(s.Limits.Buckets)
	s.Limits.Mu.Unlock()
	s.Limits.Reset()
	return map[string]any{"cleared": n}, nil
}

// AddFault checks a fault injection rule, installs it and returns it with
// its id. A rule that does nothing, names no route of the API, or names a
// business that does not exist is refused with a 400 or 404 *Error.
func (s *API) AddFault(f admin.FaultRule) (admin.FaultRule, error) {
	tenant, err := s.checkFault(&f)
	if err != nil {
		return admin.FaultRule{}, err
	}
	return s.FaultSet.add(f, tenant), nil
}

// Faults returns the fault injection rules, with how often each fired.
func (s *API) Faults() []admin.FaultRule { return s.FaultSet.List() }

// ClearFaults removes every fault injection rule.
func (s *API) ClearFaults() { s.FaultSet.Reset() }
