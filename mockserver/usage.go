package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// usagePrices is what an authenticated request costs in the usage log, in
// cents: a placed call 10, a sent SMS 1, everything else 0.
var usagePrices = map[string]int{
	"POST /v1/calls":    10,
	"POST /v1/sms/send": 1,
}

// usageLog keeps one entry per authenticated API request, per user. It has
// its own lock because reads (which hold only the store's read lock) write
// to it.
type usageLog struct {
	mu sync.RWMutex
	t  *store.Table[*store.UsageEntry]
}

func newUsageLog() *usageLog { return &usageLog{t: store.NewLogTable[*store.UsageEntry]()} }

func (u *usageLog) reset() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.t = store.NewLogTable[*store.UsageEntry]()
}

func (u *usageLog) record(s *Server, p *principal, r *http.Request, resp *response) {
	endpoint := strings.TrimPrefix(r.URL.Path, apiPrefix)
	e := &store.UsageEntry{
		Endpoint:   endpoint,
		Method:     r.Method,
		StatusCode: resp.status,
	}
	if p.key != nil {
		e.BusinessID = p.key.BusinessID
	}
	if resp.status < 300 {
		e.CostCents = usagePrices[r.Method+" "+endpoint]
		if r.Method == http.MethodPost && endpoint == "/v1/calls" {
			var created struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(resp.body, &created) == nil {
				e.CallID = created.ID
			}
		}
	}
	e.ID = s.ids.uuid()
	e.Owner = p.ownerID()
	u.mu.Lock()
	defer u.mu.Unlock()
	e.CreatedAt = u.t.Stamp(s.clock.Now())
	u.t.Put(e)
}

// page is one page of a user's usage log, newest first.
func (u *usageLog) page(owner string, pq pageQuery, match func(*store.UsageEntry) bool) ([]usageJSON, bool) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return listPage(u.t, []string{owner}, pq, match, usageView)
}

// usageJSON is a usage log entry as the API shows it: a struct rather than
// a map, because the log is the largest list a load test reads.
type usageJSON struct {
	ID         string    `json:"id"`
	Endpoint   string    `json:"endpoint"`
	Method     string    `json:"method"`
	StatusCode int       `json:"status_code"`
	CallID     *string   `json:"call_id"`
	CostCents  int       `json:"cost_cents"`
	CreatedAt  time.Time `json:"created_at"`
}

func usageView(e *store.UsageEntry) usageJSON {
	v := usageJSON{
		ID: e.ID, Endpoint: e.Endpoint, Method: e.Method, StatusCode: e.StatusCode,
		CostCents: e.CostCents, CreatedAt: e.CreatedAt,
	}
	if e.CallID != "" {
		v.CallID = &e.CallID
	}
	return v
}
