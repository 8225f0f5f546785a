package hooks

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Subscription defaults and bounds.
const (
	// defaultSecretGrace is how long a rotated-out secret keeps signing
	// when the rotation does not say.
	defaultSecretGrace = 24 * time.Hour
	secretPrefix       = "whsec_"
	secretBytes        = 24
)

// typedEvents returns a subscription's events as the SDK's type.
func typedEvents(events []string) []webhooks.EventType {
	out := make([]webhooks.EventType, len(events))
	for i, e := range events {
		out[i] = webhooks.EventType(e)
	}
	return out
}

// allEventTypes returns the 27 event types of spec section 6
// (webhooks.EventTypes), as the strings a subscription's events hold.
func allEventTypes() []string {
	types := webhooks.EventTypes()
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = string(t)
	}
	return out
}

// webhookOf returns a subscription the caller has access to, or 404.
func webhookOf(rc *httpapi.Ctx, id string) (*store.Webhook, error) {
	return httpapi.Reachable(rc, rc.Tx.Webhooks, id, "webhook subscription")
}

func (s *Service) getWebhooks(rc *httpapi.Ctx) (any, error) {
	view := func(w *store.Webhook) webhooks.Subscription { return webhookView(w, rc.Now) }
	return httpapi.ReadOrList(rc, rc.Tx.Webhooks, "webhook subscription", nil, view, func(items []webhooks.Subscription, more bool) any {
		return webhookList{Webhooks: items, HasMore: more}
	})
}

// webhookList is a page of GET /v1/webhooks.
type webhookList struct {
	Webhooks []webhooks.Subscription `json:"webhooks"`
	HasMore  bool                    `json:"has_more"`
}

// webhookUpsertBody is POST /v1/webhooks after schema validation.
type webhookUpsertBody struct {
	ID            string                    `json:"id"`
	BusinessID    string                    `json:"business_id"`
	WebhookURL    string                    `json:"webhook_url"`
	Events        []string                  `json:"events"`
	Description   *string                   `json:"description"`
	IsActive      *bool                     `json:"is_active"`
	Preset        string                    `json:"preset"`
	Template      *webhooks.PayloadTemplate `json:"payload_template"`
	CustomHeaders map[string]*string        `json:"custom_headers"`
	HTTPMethod    string                    `json:"http_method"`
	BodyFormat    string                    `json:"body_format"`
}

func (s *Service) upsertWebhook(rc *httpapi.Ctx) (any, error) {
	var body webhookUpsertBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	var sent map[string]json.RawMessage
	_ = httpapi.DecodeLoose(rc.Body, &sent)
	if _, err := rc.Business(body.BusinessID); err != nil {
		return nil, err
	}
	var w *store.Webhook // the subscription updated (nil: one is created)
	saved := map[string]string{}
	if body.ID != "" {
		var err error
		if w, err = webhookOf(rc, body.ID); err != nil {
			return nil, err
		}
		if w.Owner != body.BusinessID {
			return nil, domain.InvalidField("/business_id", "does not match the subscription's business %s (a subscription cannot move)", w.Owner)
		}
		saved = w.CustomHeaders
	}

	// Check everything before changing anything.
	if err := s.CheckReceiver(body.WebhookURL); err != nil {
		return nil, domain.InvalidField("/webhook_url", "%v", err)
	}
	change := webhookChange{body: &body, sent: sent, now: rc.Now.UTC()}
	if _, ok := sent["payload_template"]; ok && body.Template != nil {
		if e := validateTemplate(body.Template.Fields); e != nil {
			return nil, e
		}
		change.template = body.Template
	}
	if _, ok := sent["custom_headers"]; ok {
		var e *domain.Error
		if change.headers, e = mergeCustomHeaders(saved, body.CustomHeaders); e != nil {
			return nil, e
		}
	}

	if w != nil {
		rc.Tx.Webhooks.Update(w, func(w *store.Webhook) { change.apply(w) })
		if !w.Active {
			s.cancelDeliveries(rc.Tx, w.ID, "the subscription was deactivated")
		}
		return webhookView(w, rc.Now), nil
	}
	created := &store.Webhook{
		Events: allEventTypes(), Active: true,
		HTTPMethod: http.MethodPost, BodyFormat: "json", CustomHeaders: map[string]string{},
	}
	change.apply(created)
	rc.Tx.Webhooks.Insert(created, body.BusinessID, rc.Now)
	created.UpdatedAt = created.CreatedAt // the time Insert stamped
	secret := s.NewSigningSecret()        // after the id, as ever: seeded ids stay the same
	created.Secrets = []store.WebhookSecret{{Value: secret, CreatedAt: created.CreatedAt}}
	v := webhookView(created, rc.Now)
	v.Secret = secret
	return httpapi.Created(v), nil
}

// webhookChange is what an upsert changes in a subscription, checked.
type webhookChange struct {
	body     *webhookUpsertBody
	sent     map[string]json.RawMessage // the members sent
	template *webhooks.PayloadTemplate  // the template sent (nil: none, or null)
	headers  map[string]string          // the custom headers merged, when sent
	now      time.Time
}

// apply makes the change on w: in Update's change function, or on a new
// subscription before it is stored.
func (c webhookChange) apply(w *store.Webhook) {
	body := c.body
	w.URL = body.WebhookURL
	if body.Events != nil {
		w.Events = slices.Clone(body.Events)
	}
	if _, ok := c.sent["description"]; ok {
		w.Description = body.Description
	}
	if body.IsActive != nil {
		w.Active = *body.IsActive
	}
	_, templateSent := c.sent["payload_template"]
	switch {
	case templateSent:
		w.Template, w.Preset = c.template, ""
	case body.Preset != "":
		w.Template, _ = expandPreset(body.Preset)
		w.Preset = body.Preset
	}
	if _, ok := c.sent["custom_headers"]; ok {
		w.CustomHeaders = c.headers
	}
	if body.HTTPMethod != "" {
		w.HTTPMethod = body.HTTPMethod
	}
	if body.BodyFormat != "" {
		w.BodyFormat = body.BodyFormat
	}
	w.UpdatedAt = c.now
}

// mergeCustomHeaders applies a sent custom_headers object to the saved
// headers: the sent names become the set (canonical names, no two equal in
// any case), a string sets the value and null keeps the saved one. nil
// (custom_headers: null) means no headers.
func mergeCustomHeaders(saved map[string]string, sent map[string]*string) (map[string]string, *domain.Error) {
	out := map[string]string{}
	for name, v := range sent {
		canon := http.CanonicalHeaderKey(name)
		ptr := "/custom_headers/" + jsonPointerEscape(name)
		if _, dup := out[canon]; dup {
			return nil, domain.InvalidField(ptr, "header %s is given twice (names are case-insensitive)", canon)
		}
		if v != nil {
			out[canon] = *v
			continue
		}
		old, ok := saved[canon]
		if !ok {
			return nil, domain.InvalidField(ptr, "null keeps the saved value, but header %s has none: send its value", canon)
		}
		out[canon] = old
	}
	return out, nil
}

// NewSigningSecret returns "whsec_" and the base64 of 24 random bytes
// (deterministic under WithIDSeed).
func (s *Service) NewSigningSecret() string {
	var b [secretBytes]byte
	s.IDs.Read(b[:])
	return secretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

func (s *Service) deleteWebhook(rc *httpapi.Ctx) (any, error) {
	id, err := rc.RequireQuery("id")
	if err != nil {
		return nil, err
	}
	w, err := webhookOf(rc, id)
	if err != nil {
		return nil, err
	}
	rc.Tx.Webhooks.Delete(w.ID)
	s.cancelDeliveries(rc.Tx, w.ID, "the subscription was deleted")
	return httpapi.Deleted(w.ID), nil
}

func (s *Service) rotateWebhookSecret(rc *httpapi.Ctx) (any, error) {
	var body struct {
		ID          string `json:"id"`
		GraceSecond *int   `json:"grace_period_seconds"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	w, err := webhookOf(rc, body.ID)
	if err != nil {
		return nil, err
	}
	grace := defaultSecretGrace
	if body.GraceSecond != nil {
		grace = time.Duration(*body.GraceSecond) * time.Second
	}
	expires := rc.Now.Add(grace).UTC()
	// Keep the secrets still signing, each ending no later than the new
	// grace period; drop the expired ones.
	kept := make([]store.WebhookSecret, 0, len(w.Secrets)+1)
	secret := s.NewSigningSecret()
	kept = append(kept, store.WebhookSecret{Value: secret, CreatedAt: rc.Now.UTC()})
	for _, old := range w.Secrets {
		if !old.SignsAt(rc.Now) {
			continue
		}
		if old.ExpiresAt.IsZero() || old.ExpiresAt.After(expires) {
			old.ExpiresAt = expires
		}
		if grace > 0 {
			kept = append(kept, old)
		}
	}
	rc.Tx.Webhooks.Update(w, func(w *store.Webhook) {
		w.Secrets = kept
		w.UpdatedAt = rc.Now.UTC()
	})
	v := webhookView(w, rc.Now)
	v.Secret = secret
	return v, nil
}

// rotatingCount is how many rotated-out secrets still sign at a
// simulated time (the ones that expire last).
func rotatingCount(w *store.Webhook, at time.Time) int {
	n := 0
	for _, sec := range w.Secrets {
		if sec.Rotated() && sec.SignsAt(at) {
			n++
		}
	}
	return n
}

// activeSecrets are the secrets that sign at a simulated time, newest
// first.
func activeSecrets(w *store.Webhook, at time.Time) []string {
	out := make([]string, 0, len(w.Secrets))
	for _, sec := range w.Secrets {
		if sec.SignsAt(at) {
			out = append(out, sec.Value)
		}
	}
	return out
}

// webhookView is a subscription as the API shows it: never a secret, never
// a custom header value (each saved header name maps to null, which sent
// back keeps the value), the rotated-out secrets still signing at now.
// Every stored subscription has a current secret (the create gives it one
// before anything shows it), hence a secret_created_at.
func webhookView(w *store.Webhook, now time.Time) webhooks.Subscription {
	headers := make(map[string]*string, len(w.CustomHeaders))
	for name := range w.CustomHeaders {
		headers[name] = nil
	}
	rotating := []webhooks.RotatedSecret{}
	for _, sec := range w.Secrets {
		if sec.Rotated() && sec.SignsAt(now) {
			rotating = append(rotating, webhooks.RotatedSecret{CreatedAt: sec.CreatedAt, ExpiresAt: sec.ExpiresAt})
		}
	}
	v := webhooks.Subscription{
		ID: w.ID, BusinessID: w.Owner, WebhookURL: w.URL, Events: typedEvents(w.Events),
		Description: w.Description, IsActive: w.Active, Preset: val.Strp(w.Preset),
		PayloadTemplate: w.Template, CustomHeaders: headers,
		HTTPMethod: w.HTTPMethod, BodyFormat: w.BodyFormat,
		PreviousSecrets: rotating, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	if len(w.Secrets) > 0 {
		v.SecretCreatedAt = w.Secrets[0].CreatedAt
	}
	return v
}
