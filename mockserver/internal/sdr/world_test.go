package sdr

import (
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// start is the tests' fixed start time: 11:00 in New York (EDT), inside
// the default business hours and outside texts' quiet hours.
var start = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

// world is one server's platform and sdr domain, wired as mockserver.New
// wires them, with a business in New York and its agent with a number.
type world struct {
	p     *platform.Platform
	sdr   *Service
	biz   *store.Business
	agent *store.Agent
}

func newWorld(t *testing.T) *world {
	t.Helper()
	seed := uint64(7)
	p := platform.New(platform.Config{Start: start, IDSeed: &seed})
	tel := telephony.New(p, hooks.New(p))
	w := &world{p: p, sdr: New(p, tel)}
	p.Write(func(tx *platform.Tx) {
		w.biz = tx.InsertBusiness(&store.Business{Name: "Acme", Timezone: "America/New_York"}, start)
		w.agent = &store.Agent{Name: "Sam", Status: "active", PhoneNumber: "+15550100001"}
		tx.Agents.Insert(w.agent, w.biz.ID, start)
		n := &store.Number{PhoneNumber: w.agent.PhoneNumber, AgentID: w.agent.ID}
		tx.Numbers.Insert(n, w.biz.ID, start)
		tx.NumbersByPhone[n.PhoneNumber] = n
	})
	return w
}

// leadSpec is a lead to insert: created at start, touched as state says.
type leadSpec struct {
	status      string
	source      string
	phone       string // "" none
	email       string // "" none
	lastContact time.Duration
	state       *store.SDRLead
}

// addLead inserts a lead of the business created at start.
func (w *world) addLead(tx *platform.Tx, s leadSpec) *store.Lead {
	name := "Pat Lee"
	l := &store.Lead{Name: &name, Status: s.status}
	if l.Status == "" {
		l.Status = store.LeadNew
	}
	if s.source != "" {
		l.Source = &s.source
	}
	if s.phone != "" {
		l.Phone = &s.phone
	}
	if s.email != "" {
		l.Email = &s.email
	}
	tx.Leads.Insert(l, w.biz.ID, start)
	l.UpdatedAt = l.CreatedAt
	if s.lastContact != 0 {
		at := start.Add(s.lastContact)
		l.LastContactAt = &at
	}
	if s.state != nil {
		tx.SDRLeads[l.ID] = s.state
	}
	return l
}

// ctx returns the business's pipeline at now under its configuration.
func (w *world) ctx(tx *platform.Tx, now time.Time) *sdrCtx {
	return newSDRCtx(tx, now, w.biz, SDRConfigOf(tx, w.biz.ID))
}
