// The scenario of internal/harness/gentest, with the client that openapi-typescript
// (types) and openapi-fetch (requests) make from the served OpenAPI
// document (schema.d.ts, written next to this file by the test): list
// agents, create a call, advance the clock, read the call, page through
// leads. It prints what it saw as JSON for the test to check.
//
// Environment: VOICEAGENT_BASE_URL (ends with /api), VOICEAGENT_API_KEY,
// VOICEAGENT_MOCK_ADMIN_URL (ends with /_mock), VOICEAGENT_BUSINESS_ID,
// VOICEAGENT_CALL_TO.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Lead = components["schemas"]["Lead"];

// The one Node.js global the scenario uses (no @types/node needed).
declare const process: { env: Record<string, string | undefined> };

function env(name: string): string {
  const v = process.env[name];
  if (v === undefined) throw new Error(`${name} is not set`);
  return v;
}

function fail(what: string, status: number, body: unknown): never {
  throw new Error(`${what}: status ${status}: ${JSON.stringify(body)}`);
}

const client = createClient<paths>({
  baseUrl: env("VOICEAGENT_BASE_URL"),
  headers: { Authorization: `Bearer ${env("VOICEAGENT_API_KEY")}` },
});

// List agents: without id the answer is the list form of the union, the one
// with the agents array.
const agents = await client.GET("/v1/agents");
if (agents.data === undefined || !("agents" in agents.data)) {
  fail("list agents", agents.response.status, agents.error ?? agents.data);
}
const agentIds: string[] = agents.data.agents.map((a) => a.id);
const agentId = agentIds[0];
if (agentId === undefined) throw new Error("no agent listed");

// Create a call.
const created = await client.POST("/v1/calls", {
  params: { header: { "Idempotency-Key": "scenario-call-1" } },
  body: { agent_id: agentId, to: env("VOICEAGENT_CALL_TO") },
});
if (created.data === undefined) fail("create call", created.response.status, created.error);
const createdStatus: "queued" = created.data.status;

// Advance the simulated clock past the longest simulated call (admin API,
// not part of the generated client).
const advance: Record<string, unknown> = { seconds: 900 };
if (env("VOICEAGENT_BUSINESS_ID") !== "") advance.business_id = env("VOICEAGENT_BUSINESS_ID");
const adv = await fetch(`${env("VOICEAGENT_MOCK_ADMIN_URL")}/clock/advance`, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(advance),
});
if (!adv.ok) fail("advance the clock", adv.status, await adv.text());

// Read the call: with id the answer is the detail form of the union, the
// one without the calls array.
const got = await client.GET("/v1/calls", { params: { query: { id: created.data.id } } });
if (got.data === undefined || "calls" in got.data) fail("read call", got.response.status, got.error ?? got.data);
const call: components["schemas"]["CallDetail"] = got.data;

// Page through the leads, three at a time, with the created_at cursor.
const leads: string[] = [];
let pages = 0;
let after: string | undefined;
for (;;) {
  const page = await client.GET("/v1/leads", { params: { query: { limit: 3, after } } });
  if (page.data === undefined || !("leads" in page.data)) {
    fail("list leads", page.response.status, page.error ?? page.data);
  }
  pages++;
  const items: Lead[] = page.data.leads;
  leads.push(...items.map((l) => l.id));
  const last = items[items.length - 1];
  if (!page.data.has_more || last === undefined || pages > 100) break;
  after = last.created_at;
}

// An error answer decodes into the error format.
const nf = await client.GET("/v1/calls", { params: { query: { id: agentId } } });
if (nf.error === undefined) fail("read a missing call", nf.response.status, nf.data);
const notFoundCode: string = nf.error.error.code;

console.log(
  JSON.stringify({
    agents: agentIds,
    call_id: created.data.id,
    created_status: createdStatus,
    call_status: call.status,
    call_duration: call.duration ?? 0,
    transcript: call.transcript ?? "",
    leads,
    lead_pages: pages,
    not_found_code: notFoundCode,
    not_found_request_id: nf.response.headers.get("X-Request-Id") ?? "",
  }),
);
