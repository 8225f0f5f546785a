// # Analytics
//
// GET /v1/analytics/dashboard, GET /v1/analytics/calls, GET
// /v1/analytics/agents and GET /v1/analytics/weekly need calls:read; GET
// /v1/analytics/funnel needs leads:read; GET /v1/analytics/businesses
// workspaces:read. All are limited to
// 120 requests a minute per key (see Rate limits). Every read covers the
// businesses the key reaches, or the one business_id names (404 unknown,
// 403 not reached).
//
// The window: days (default 30, 1 to 90; anything else is 400
// invalid_request) looks back from now: a record counts when its
// created_at is at or after now minus days times 24 hours (period.since).
// period is {days, since}, plus group_by on calls and source on a filtered
// funnel.
//
// Definitions shared by every read. A completed call is a finished
// conversation: status completed (outbound) or ended (inbound). Durations
// are seconds; total_duration sums every call's duration (calls still
// running count 0; voicemails count theirs); an average duration is the
// total over the calls that have a duration (0 when none). Rates and
// changes are percentages rounded to two decimals (22.22 for 2 of 9);
// conversion_rate is converted leads over all leads of the window, 0 when
// there are none. Leads count by created_at and their current status.
//
// dashboard: {period, leads {total, by_status (all eight statuses, zeros
// included), conversion_rate, recent (the 5 newest leads, list form)},
// calls {total, completed, total_duration_seconds, avg_duration_seconds},
// agents {total (the agents of the businesses, whatever the window),
// top_by_calls (at most 5: most calls, then longest total duration, then
// agent id) [{agent_id, name, count, total_duration, avg_duration}]}}.
//
// calls: group_by day (default) or week (another is 400); agent_id keeps
// one agent's calls (an agent the key does not reach simply has none).
// {period, summary {total_calls, total_duration_seconds,
// avg_duration_seconds}, timeline [{date, total, completed, total_duration,
// avg_duration_seconds, statuses {status: count}}]}. The timeline has one
// entry per UTC day (date YYYY-MM-DD), or per ISO week (date: its Monday),
// from the one holding since to the one holding now, oldest first, empty
// ones included.
//
// funnel: source keeps one source's leads. {period, total_leads, lost,
// funnel [{stage, count, rate_from_top, dropoff_rate}]} with stages new,
// contacted, qualified, converted. A lead counts at every stage up to its
// status (a converted lead counts four times); lost, unqualified, spam and
// do_not_contact leads count at new only (the mock does not record how far
// they got). rate_from_top is count over the new stage's count;
// dropoff_rate is the loss from the previous stage over that stage's count
// (0 for new).
//
// agents: agent_id keeps one agent. {period, agents [{agent_id,
// agent_name, business_id, calls {total, completed, avg_duration_seconds,
// total_duration_seconds}, leads {total, converted, conversion_rate}}]}:
// every agent of the businesses, those without calls included, most calls
// first, then by name. A lead belongs to the agent that collected it
// (agent_id).
//
// weekly (no days): this_week is the last 7 days [now-7d, now], last_week
// the 7 before [now-14d, now-7d); both rolling, not calendar weeks. {period
// {this_week {start, end}, last_week {start, end}}, calls {this_week,
// last_week: {total, completed, avg_duration, total_duration}, change
// {total, completed, avg_duration}}, leads {this_week, last_week: {total,
// converted}, change {total, converted}}, top_agents (at most 5, by this
// week's calls) [{agent_id, agent_name, total_calls,
// total_duration_seconds}]}. A change is (this - last) / last in percent;
// from a zero last week it is 100 when this week is not zero and 0 when
// both are.
//
// businesses: {period, businesses [{business_id, business_name, calls
// {total, completed, avg_duration_seconds, total_duration_seconds}, leads
// {total, converted, conversion_rate}}]}, one entry per business the key
// reaches, oldest first.
//
// Cost: every read walks the window's records newest first and stops at
// the first one older than since, so it costs what the window holds, not
// what the store holds (a 7-day dashboard over 100,000 calls and leads
// spread over 60 days reads about 12,000 of each; see the benchmark
// BenchmarkSDRAndAnalytics100k). Nothing is cached: figures are always
// those of the store at the moment of the request.
package mockserver
