// Package client is the entry point of the SDK: one Client with a service
// per resource of the voice agent platform, all sharing one backend (HTTP
// engine, retries, rate limits).
//
//	c := client.New(os.Getenv("VOICEAGENT_API_KEY"))
//	agents, err := c.Agents.List(ctx, nil)
//
// The base URL comes from voiceagent.WithBaseURL, else VOICEAGENT_BASE_URL,
// else voiceagent.DefaultBaseURL. An empty apiKey falls back to
// VOICEAGENT_API_KEY.
package client

import (
	"context"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/analytics"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/numbers"
	"github.com/voiceagent/voiceagent-go/runs"
	"github.com/voiceagent/voiceagent-go/sdr"
	"github.com/voiceagent/voiceagent-go/signup"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Client is a client of the platform. It holds no global state: clients
// with different keys and options live side by side. It is safe for
// concurrent use.
type Client struct {
	backend *voiceagent.Backend

	// Agents manages voice agents and the voice catalog.
	Agents *agents.Service
	// Numbers reads phone numbers.
	Numbers *numbers.Service
	// Signup creates accounts (no key needed) and exchanges the dashboard
	// magic link for a session.
	Signup *signup.Service
	// Keys manages API keys; it needs a dashboard session
	// (voiceagent.WithSessionCookie), not a bearer key.
	Keys *keys.Service
	// Webhooks manages webhook subscriptions and their signing secrets.
	Webhooks *webhooks.Service
	// Events reads the event log and replays events to subscriptions.
	Events *events.Service
	// Calls places outbound calls and reads calls and transcripts.
	Calls *calls.Service
	// Leads reads and edits leads.
	Leads *leads.Service
	// SMS sends texts, reads threads and updates SMS prompts.
	SMS *sms.Service
	// Agency manages an agency: profile, offers, enrollments, installations.
	Agency *agency.Service
	// Account reads balance, usage, capabilities and the schema catalog.
	Account *account.Service

	// Products manages a business's products.
	Products *catalog.ProductsService
	// Knowledge manages a business's knowledge base.
	Knowledge *catalog.KnowledgeService
	// Runs schedules communication runs of calls and texts.
	Runs *runs.Service
	// GovernedUpdates submits reviewed changes.
	GovernedUpdates *governance.UpdatesService
	// Approvals asks people for approvals by phone.
	Approvals *governance.ApprovalsService
	// SDR drives the outbound-sales pipeline (bearer key with sdr:* scopes,
	// or a dashboard session).
	SDR *sdr.Service
	// Analytics reads aggregates of calls and leads.
	Analytics *analytics.Service
}

// New returns a client using apiKey (or VOICEAGENT_API_KEY when empty) and
// opts. Every option can also be given to a single call.
func New(apiKey string, opts ...voiceagent.Option) *Client {
	if apiKey != "" {
		opts = append([]voiceagent.Option{voiceagent.WithAPIKey(apiKey)}, opts...)
	}
	b := voiceagent.NewBackend(opts...)
	return &Client{
		backend: b,
		Agents:  agents.NewService(b),
		Numbers: numbers.NewService(b),
		Signup:  signup.NewService(b),
		Keys:    keys.NewService(b),

		Webhooks: webhooks.NewService(b),
		Events:   events.NewService(b),
		Calls:    calls.NewService(b),
		Leads:    leads.NewService(b),
		SMS:      sms.NewService(b),
		Agency:   agency.NewService(b),
		Account:  account.NewService(b),

		Products:        catalog.NewProductsService(b),
		Knowledge:       catalog.NewKnowledgeService(b),
		Runs:            runs.NewService(b),
		GovernedUpdates: governance.NewUpdatesService(b),
		Approvals:       governance.NewApprovalsService(b),
		SDR:             sdr.NewService(b),
		Analytics:       analytics.NewService(b),
	}
}

// Backend returns the client's backend, for services outside this module.
func (c *Client) Backend() *voiceagent.Backend { return c.backend }

// Do sends a raw request through the client's engine (auth, retries,
// idempotency keys, rate limits, error decoding): the escape hatch for
// endpoints the SDK does not model yet. path is relative to the base URL
// ("/v1/agents"); query is a struct with `url:` tags, url.Values or nil;
// body is JSON-encoded; the answer is decoded into out.
func (c *Client) Do(ctx context.Context, method, path string, query, body, out any, opts ...voiceagent.Option) error {
	return c.backend.Do(ctx, method, path, query, body, out, opts...)
}
