// Package analytics reads aggregates of the calls and leads of the key's
// businesses: the dashboard, the call timeline, the lead funnel, per-agent
// and per-business figures and the weekly comparison.
//
// Every read looks back Days days (default 30, at most 90) except Weekly,
// which compares the last 7 days with the 7 before. Rates and changes are
// percentages with two decimals. The dashboard, calls, agents and weekly
// reads need calls:read; the funnel leads:read; businesses
// workspaces:read. BusinessID narrows any read to one business.
package analytics

import (
	"context"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/leads"
)

// Timeline groupings of Calls.
const (
	GroupByDay  = "day"
	GroupByWeek = "week"
)

// Params are what every read but Calls, Funnel and Agents takes.
type Params struct {
	// Days is the look-back (default 30, at most 90).
	Days int `url:"days,omitempty"`
	// BusinessID narrows the read to one business.
	BusinessID string `url:"business_id,omitempty"`
}

// CallsParams select Calls.
type CallsParams struct {
	Days       int    `url:"days,omitempty"`
	BusinessID string `url:"business_id,omitempty"`
	// GroupBy is GroupByDay (default) or GroupByWeek.
	GroupBy string `url:"group_by,omitempty"`
	// AgentID keeps one agent's calls.
	AgentID string `url:"agent_id,omitempty"`
}

// FunnelParams select Funnel.
type FunnelParams struct {
	Days       int    `url:"days,omitempty"`
	BusinessID string `url:"business_id,omitempty"`
	// Source keeps leads from one source.
	Source string `url:"source,omitempty"`
}

// AgentsParams select Agents.
type AgentsParams struct {
	Days       int    `url:"days,omitempty"`
	BusinessID string `url:"business_id,omitempty"`
	// AgentID keeps one agent.
	AgentID string `url:"agent_id,omitempty"`
}

// WeeklyParams select Weekly.
type WeeklyParams struct {
	BusinessID string `url:"business_id,omitempty"`
}

// Period is the window of a read.
type Period struct {
	Days    int       `json:"days"`
	Since   time.Time `json:"since"`
	GroupBy string    `json:"group_by,omitempty"`
	Source  string    `json:"source,omitempty"`
}

// CallStats sum calls. Completed counts finished conversations (completed
// and ended calls); averages are over the calls that have a duration.
type CallStats struct {
	Total                int     `json:"total"`
	Completed            int     `json:"completed"`
	TotalDurationSeconds int     `json:"total_duration_seconds"`
	AvgDurationSeconds   float64 `json:"avg_duration_seconds"`
}

// LeadStats sum leads; ConversionRate is converted/total in percent.
type LeadStats struct {
	Total          int     `json:"total"`
	Converted      int     `json:"converted"`
	ConversionRate float64 `json:"conversion_rate"`
}

// Dashboard is the overview of GET /v1/analytics/dashboard.
type Dashboard struct {
	Period Period          `json:"period"`
	Leads  DashboardLeads  `json:"leads"`
	Calls  CallStats       `json:"calls"`
	Agents DashboardAgents `json:"agents"`
}

// DashboardLeads sums the window's leads.
type DashboardLeads struct {
	Total          int            `json:"total"`
	ByStatus       map[string]int `json:"by_status"`
	ConversionRate float64        `json:"conversion_rate"`
	// Recent are the newest leads (at most 5), in list form.
	Recent []leads.Lead `json:"recent"`
}

// DashboardAgents counts agents and ranks them by calls.
type DashboardAgents struct {
	Total      int        `json:"total"`
	TopByCalls []TopAgent `json:"top_by_calls"`
}

// TopAgent is an agent ranked by its calls in the window.
type TopAgent struct {
	AgentID       string  `json:"agent_id"`
	Name          string  `json:"name"`
	Count         int     `json:"count"`
	TotalDuration int     `json:"total_duration"`
	AvgDuration   float64 `json:"avg_duration"`
}

// CallsReport is GET /v1/analytics/calls.
type CallsReport struct {
	Period  Period       `json:"period"`
	Summary CallsSummary `json:"summary"`
	// Timeline has one entry per day or week of the window, oldest first,
	// empty ones included.
	Timeline []TimelineEntry `json:"timeline"`
}

// CallsSummary sums the window's calls.
type CallsSummary struct {
	TotalCalls           int     `json:"total_calls"`
	TotalDurationSeconds int     `json:"total_duration_seconds"`
	AvgDurationSeconds   float64 `json:"avg_duration_seconds"`
}

// TimelineEntry is one day (or the week starting that Monday), UTC.
type TimelineEntry struct {
	// Date is YYYY-MM-DD.
	Date               string  `json:"date"`
	Total              int     `json:"total"`
	Completed          int     `json:"completed"`
	TotalDuration      int     `json:"total_duration"`
	AvgDurationSeconds float64 `json:"avg_duration_seconds"`
	// Statuses counts the entry's calls per status.
	Statuses map[string]int `json:"statuses"`
}

// Funnel is GET /v1/analytics/funnel.
type Funnel struct {
	Period     Period `json:"period"`
	TotalLeads int    `json:"total_leads"`
	Lost       int    `json:"lost"`
	// Funnel is new, contacted, qualified, converted; a lead counts at
	// every stage up to its status.
	Funnel []FunnelStage `json:"funnel"`
}

// FunnelStage is one stage of the funnel; rates are percentages.
type FunnelStage struct {
	Stage       string  `json:"stage"`
	Count       int     `json:"count"`
	RateFromTop float64 `json:"rate_from_top"`
	DropoffRate float64 `json:"dropoff_rate"`
}

// AgentsReport is GET /v1/analytics/agents.
type AgentsReport struct {
	Period Period       `json:"period"`
	Agents []AgentStats `json:"agents"`
}

// AgentStats are one agent's figures.
type AgentStats struct {
	AgentID    string    `json:"agent_id"`
	AgentName  string    `json:"agent_name"`
	BusinessID string    `json:"business_id"`
	Calls      CallStats `json:"calls"`
	Leads      LeadStats `json:"leads"`
}

// Weekly is GET /v1/analytics/weekly: the last 7 days against the 7
// before.
type Weekly struct {
	Period    WeeklyPeriod  `json:"period"`
	Calls     WeeklyCalls   `json:"calls"`
	Leads     WeeklyLeads   `json:"leads"`
	TopAgents []WeeklyAgent `json:"top_agents"`
}

// WeeklyPeriod are the two weeks compared.
type WeeklyPeriod struct {
	ThisWeek Range `json:"this_week"`
	LastWeek Range `json:"last_week"`
}

// Range is [Start, End).
type Range struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// WeeklyCalls compares calls.
type WeeklyCalls struct {
	ThisWeek WeekCalls `json:"this_week"`
	LastWeek WeekCalls `json:"last_week"`
	// Change is in percent; from a zero last week it is 100 (0 when both
	// are zero).
	Change CallsChange `json:"change"`
}

// WeekCalls sum one week's calls.
type WeekCalls struct {
	Total         int     `json:"total"`
	Completed     int     `json:"completed"`
	AvgDuration   float64 `json:"avg_duration"`
	TotalDuration int     `json:"total_duration"`
}

// CallsChange are percent changes of calls.
type CallsChange struct {
	Total       float64 `json:"total"`
	Completed   float64 `json:"completed"`
	AvgDuration float64 `json:"avg_duration"`
}

// WeeklyLeads compares leads.
type WeeklyLeads struct {
	ThisWeek WeekLeads   `json:"this_week"`
	LastWeek WeekLeads   `json:"last_week"`
	Change   LeadsChange `json:"change"`
}

// WeekLeads sum one week's leads.
type WeekLeads struct {
	Total     int `json:"total"`
	Converted int `json:"converted"`
}

// LeadsChange are percent changes of leads.
type LeadsChange struct {
	Total     float64 `json:"total"`
	Converted float64 `json:"converted"`
}

// WeeklyAgent is an agent ranked by this week's calls.
type WeeklyAgent struct {
	AgentID              string `json:"agent_id"`
	AgentName            string `json:"agent_name"`
	TotalCalls           int    `json:"total_calls"`
	TotalDurationSeconds int    `json:"total_duration_seconds"`
}

// BusinessesReport is GET /v1/analytics/businesses.
type BusinessesReport struct {
	Period     Period          `json:"period"`
	Businesses []BusinessStats `json:"businesses"`
}

// BusinessStats are one business's figures.
type BusinessStats struct {
	BusinessID   string    `json:"business_id"`
	BusinessName string    `json:"business_name"`
	Calls        CallStats `json:"calls"`
	Leads        LeadStats `json:"leads"`
}

// Service is the analytics API. Get it from client.Client.Analytics.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// Dashboard returns the overview: leads, calls and agents (calls:read).
func (s *Service) Dashboard(ctx context.Context, p *Params, opts ...voiceagent.Option) (*Dashboard, error) {
	return voiceagent.Send[Dashboard](ctx, s.b, http.MethodGet, "/v1/analytics/dashboard", p, nil, opts...)
}

// Calls returns the call timeline (calls:read).
func (s *Service) Calls(ctx context.Context, p *CallsParams, opts ...voiceagent.Option) (*CallsReport, error) {
	return voiceagent.Send[CallsReport](ctx, s.b, http.MethodGet, "/v1/analytics/calls", p, nil, opts...)
}

// Funnel returns the lead funnel (leads:read).
func (s *Service) Funnel(ctx context.Context, p *FunnelParams, opts ...voiceagent.Option) (*Funnel, error) {
	return voiceagent.Send[Funnel](ctx, s.b, http.MethodGet, "/v1/analytics/funnel", p, nil, opts...)
}

// Agents returns per-agent figures, most calls first (calls:read).
func (s *Service) Agents(ctx context.Context, p *AgentsParams, opts ...voiceagent.Option) (*AgentsReport, error) {
	return voiceagent.Send[AgentsReport](ctx, s.b, http.MethodGet, "/v1/analytics/agents", p, nil, opts...)
}

// Weekly compares the last 7 days with the 7 before (calls:read).
func (s *Service) Weekly(ctx context.Context, p *WeeklyParams, opts ...voiceagent.Option) (*Weekly, error) {
	return voiceagent.Send[Weekly](ctx, s.b, http.MethodGet, "/v1/analytics/weekly", p, nil, opts...)
}

// Businesses returns per-business figures (workspaces:read).
func (s *Service) Businesses(ctx context.Context, p *Params, opts ...voiceagent.Option) (*BusinessesReport, error) {
	return voiceagent.Send[BusinessesReport](ctx, s.b, http.MethodGet, "/v1/analytics/businesses", p, nil, opts...)
}
