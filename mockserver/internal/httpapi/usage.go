package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// usagePrices is what an authenticated request costs in the usage log, in
// cents: a placed call 10, a sent SMS 1, everything else 0.
var usagePrices = map[usageRoute]int{
	{http.MethodPost, "/v1/calls"}:    10,
	{http.MethodPost, "/v1/sms/send"}: 1,
}

// usageRoute is a method and an endpoint (a route's path without the API
// prefix).
type usageRoute struct{ method, endpoint string }

// Defaults of the usage log's bounds (WithUsageLogSize).
const (
	DefaultUsagePerUser = 10_000  // the newest entries kept per user
	DefaultUsageEntries = 100_000 // the newest entries kept in all
)

// UsageLog keeps one entry per authenticated API request, per user: the
// newest perUser entries of each user, and the newest total in all. It has
// its own lock because reads (which hold only the store's read lock) write
// to it.
//
// A request only queues its entry (under a lock held for an append); the
// queue goes into the table, in the order it was queued, when it is long
// (maxPendingUsage) and before every read, so that requests do not wait on
// each other's table inserts and a read sees every request already served.
type UsageLog struct {
	// Mu guards T; take it through Flushed (or Page), which first moves
	// the queued entries in.
	Mu             sync.RWMutex
	T              *store.Table[*store.UsageEntry]
	perUser, total int

	pendingMu sync.Mutex
	pending   []pendingUsage
}

// pendingUsage is a queued entry and its owner; the entry's CreatedAt
// holds the time it was made at until the table stamps it.
type pendingUsage struct {
	e     *store.UsageEntry
	owner string
}

// maxPendingUsage is how many entries wait in the queue at most before the
// request that queues one more moves them all into the table.
const maxPendingUsage = 256

// newUsageLog returns an empty usage log keeping perUser entries per user
// and total in all (the defaults when not positive).
func newUsageLog(perUser, total int) *UsageLog {
	if perUser <= 0 {
		perUser = DefaultUsagePerUser
	}
	if total <= 0 {
		total = DefaultUsageEntries
	}
	u := &UsageLog{perUser: perUser, total: total}
	u.Reset()
	return u
}

// Reset empties the log.
func (u *UsageLog) Reset() {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	u.pendingMu.Lock()
	u.pending = nil
	u.pendingMu.Unlock()
	u.T = store.NewLogTable[*store.UsageEntry]()
	u.T.SetRetention(store.Retention[*store.UsageEntry]{PerOwner: u.perUser, Total: u.total})
}

// Record adds an authenticated request and its response to the log, at the
// request's time on its tenant's clock (rc.Now). The entry's id is the
// request's id (its X-Request-Id), so an entry, the request's journal
// entry and the client's error name one request; the entry keeps the
// route's own strings, none of the request's.
func (u *UsageLog) Record(rc *Ctx, resp *Response) {
	p, rt := rc.Principal, rc.Route
	endpoint := strings.TrimPrefix(rt.Path, APIPrefix)
	e := &store.UsageEntry{
		Base:       store.Base{ID: rc.RequestID, CreatedAt: rc.Now},
		Endpoint:   endpoint,
		Method:     rt.Method,
		StatusCode: int16(resp.Status),
	}
	if p.Key != nil {
		e.BusinessID = p.Key.BusinessID
	}
	if resp.Status < 300 && rt.Method != http.MethodGet { // reads cost nothing
		e.CostCents = int32(usagePrices[usageRoute{rt.Method, endpoint}])
		if rt.Method == http.MethodPost && endpoint == "/v1/calls" {
			var created struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(resp.Body, &created) == nil {
				e.CallID = created.ID
			}
		}
	}
	u.pendingMu.Lock()
	u.pending = append(u.pending, pendingUsage{e, p.OwnerID()})
	full := len(u.pending) >= maxPendingUsage
	u.pendingMu.Unlock()
	if full {
		u.Mu.Lock()
		u.flush()
		u.Mu.Unlock()
	}
}

// flush moves the queued entries into the table. The caller holds Mu for
// writing.
func (u *UsageLog) flush() {
	u.pendingMu.Lock()
	queued := u.pending
	if len(queued) > 0 {
		u.pending = make([]pendingUsage, 0, len(queued))
	}
	u.pendingMu.Unlock()
	// Each run of entries of one owner (a load test's one user: the whole
	// queue) goes in at once.
	run := make([]*store.UsageEntry, 0, len(queued))
	for i, q := range queued {
		run = append(run, q.e)
		if i+1 == len(queued) || queued[i+1].owner != q.owner {
			u.T.InsertRun(q.owner, run)
			run = run[:0]
		}
	}
}

// Flushed calls read with the table holding every entry queued so far,
// under the log's lock.
func (u *UsageLog) Flushed(read func(t *store.Table[*store.UsageEntry])) {
	if u.lockFlushed() {
		defer u.Mu.RUnlock()
	} else {
		defer u.Mu.Unlock()
	}
	read(u.T)
}

// lockFlushed locks the log with every queued entry in the table: for
// reading when nothing was queued (true), else for writing, after moving
// the queue in (false).
func (u *UsageLog) lockFlushed() (shared bool) {
	u.pendingMu.Lock()
	queued := len(u.pending)
	u.pendingMu.Unlock()
	if queued == 0 {
		// Nothing to move in (a request served before this read
		// queued its entry before its response): readers share the lock.
		u.Mu.RLock()
		return true
	}
	u.Mu.Lock()
	u.flush()
	return false
}

// UsagePage is a page of GET /v1/usage.
type UsagePage struct {
	Usage   []account.UsageEntry `json:"usage"`
	HasMore bool                 `json:"has_more"`
}

// Page returns one page of a user's usage log, newest first, as GET
// /v1/usage shows it, read under the log's lock.
func (u *UsageLog) Page(owner string, pq PageQuery, match func(*store.UsageEntry) bool) UsagePage {
	if u.lockFlushed() {
		defer u.Mu.RUnlock()
	} else {
		defer u.Mu.Unlock()
	}
	items, more := ListPage(u.T, []string{owner}, pq, match, usageView)
	return UsagePage{Usage: items, HasMore: more}
}

// usageView is a usage log entry as the API shows it.
func usageView(e *store.UsageEntry) account.UsageEntry {
	return account.UsageEntry{
		ID: e.ID, Endpoint: e.Endpoint, Method: e.Method, StatusCode: int(e.StatusCode),
		CallID: Strp(e.CallID), CostCents: int(e.CostCents), CreatedAt: e.CreatedAt,
	}
}
