// Package telephony is the telephony domain of the mock server: agents and
// the simulated voice provider, phone numbers, calls and their simulator,
// transcripts, leads and lead collection, texts and the SMS compliance path,
// and the telephony admin routes (inbound calls and texts, DNC, consent,
// provider calls, prompt audits). It announces ended calls and delivered
// texts through the platform's hooks; what reacts to them lives elsewhere.
//
// The behaviour it simulates is described in docs/mockserver.md, sections
// Agents and the voice provider, Calls, Call states, Enrichment, Per-call
// webhooks, Leads, SMS and Telephony admin API.
package telephony

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// Service is the telephony domain of one server.
type Service struct {
	*platform.Platform
	hooks *hooks.Service
}

// New returns the telephony domain of engine p; calls' per-call webhooks go through hk.
func New(p *platform.Platform, hk *hooks.Service) *Service {
	s := &Service{Platform: p, hooks: hk}
	hk.SampleRecords = s.SampleRecords
	s.defineCallTasks()
	s.DefineTask(TaskTextDelivery, s.deliverText)
	s.DefineTask(TaskTextReply, s.replyText)
	return s
}
