// Package hooks is the webhooks domain of the mock server: subscriptions,
// the event log and its replay, payload templates, and the delivery engine
// that signs, posts and retries subscription deliveries, per-call webhooks
// and any other kind of delivery a domain registers (RegisterDeliveryKind).
package hooks

import "github.com/voiceagent/voiceagent-go/mockserver/internal/platform"

// Service is the webhooks domain of one server.
type Service struct {
	*platform.Platform

	engine *deliveryEngine
	// Outbound posts to receivers (subscriptions, per-call webhooks).
	Outbound OutboundPoster
	// SampleRecords, when set, gives the records of a business that sample
	// data takes its values from (events emitted without data, receiver
	// checks of a subscription).
	SampleRecords SampleRecordsFunc
}

// New returns the webhooks domain of engine p, subscribed to its event bus.
func New(p *platform.Platform) *Service {
	s := &Service{Platform: p}
	s.startDeliveries()
	return s
}
