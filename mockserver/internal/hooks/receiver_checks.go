package hooks

import (
	"net/http"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/webhooks"
	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

// SampleRecordsFunc returns the records of a business that the sample data
// of events emitted without data takes its values from
// (webhooks.SampleData): its number, latest call or lead. The domain that
// owns those records sets it (telephony); without it, samples name only
// the business and the time.
type SampleRecordsFunc func(tx *platform.Tx, businessID string) webhooks.SampleRecords

// records returns the records of a business that samples take their
// values from, at the business's time now.
func (s *Service) records(tx *platform.Tx, businessID string) webhooks.SampleRecords {
	r := webhooks.SampleRecords{BusinessID: businessID}
	if s.SampleRecords != nil {
		r = s.SampleRecords(tx, businessID)
	}
	if r.At.IsZero() {
		r.At = s.Now(tx.TenantOf(businessID))
	}
	return r
}

// sampleData returns the sample data of event type t for a business, from
// its records.
func (s *Service) sampleData(tx *platform.Tx, businessID string, t webhooks.EventType) []byte {
	return webhooks.SampleData(t, s.records(tx, businessID))
}

// receiverCheckBody is POST /_mock/receiver-checks after schema validation.
type receiverCheckBody struct {
	URL            string               `json:"url"`
	Secret         string               `json:"secret"`
	SubscriptionID string               `json:"subscription_id"`
	Events         []webhooks.EventType `json:"events"`
}

// adminReceiverChecks runs the receiver checks (package webhookstest) now,
// against a URL and secret or a subscription's URL, current secret and
// custom headers (the checks send the standard JSON body with POST, whatever
// the subscription's template, body format or method),
// through the delivery engine's outbound client: the receivers deliveries
// may reach are the ones checks may. It runs without the state lock: the
// checks wait for the receiver.
func (s *Service) adminReceiverChecks(rc *httpapi.Ctx) (any, error) {
	var body receiverCheckBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	target, secret := body.URL, body.Secret
	opts := []webhookstest.Option{
		webhookstest.WithHTTPClient(s.OutboundClient()),
		webhookstest.WithAttemptTimeout(s.Outbound.timeout),
		webhookstest.WithEvents(body.Events...),
	}
	switch {
	case body.SubscriptionID != "":
		if body.URL != "" || body.Secret != "" {
			return nil, domain.Invalid("give either url and secret, or subscription_id")
		}
		tx := s.ReadTx()
		w, ok := tx.Webhooks.Get(body.SubscriptionID)
		if ok {
			target, secret = w.URL, w.Secrets[0].Value // the current secret
			custom := http.Header{}
			for name, v := range w.CustomHeaders {
				custom.Set(name, v)
			}
			opts = append(opts, webhookstest.WithRecords(s.records(tx, w.Owner)), webhookstest.WithHeaders(custom))
		}
		tx.End()
		if !ok {
			return nil, domain.NotFound("webhook subscription not found: " + body.SubscriptionID)
		}
	case body.URL == "":
		return nil, domain.InvalidField("/url", "give the receiver's url and secret, or a subscription_id")
	default:
		if err := webhookstest.CheckSecret(body.Secret); err != nil {
			return nil, domain.InvalidField("/secret", "must be a signing secret: %s followed by standard base64", webhooks.SecretPrefix)
		}
	}
	if err := s.CheckTarget(target); err != nil {
		return nil, domain.InvalidField("/url", "%v", err)
	}
	report, err := webhookstest.Check(rc.Request.Context(), target, secret, opts...)
	if err != nil {
		return nil, domain.Invalid("%v", err)
	}
	return report, nil
}

// OutboundClient returns an HTTP client that sends requests as the
// delivery engine's attempts are sent: through the same dialer (which
// refuses addresses outside loopback unless external webhooks are
// allowed), TLS settings and timeout, following no redirect.
func (s *Service) OutboundClient() *http.Client {
	s.initOutbound()
	return &http.Client{
		Transport:     outboundTransport{&s.Outbound},
		Timeout:       s.Outbound.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// outboundTransport picks the poster's client for a request's host, as
// doOutbound does.
type outboundTransport struct{ p *OutboundPoster }

// RoundTrip implements http.RoundTripper.
func (t outboundTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c := t.p.client
	if IsLoopbackHost(r.URL.Hostname()) {
		c = t.p.loopback
	}
	return c.Transport.RoundTrip(r)
}
