// A client of the voiceagent mock server's admin API, for Node.js test
// suites.
//
// One file with no dependency (Node.js 18 or later, global fetch): copy it
// into a suite, with voiceagent-mock.d.mts for TypeScript (the declarations
// TypeScript finds beside an .mjs file). It covers every
// operation of the admin API (openapi/admin.yaml): accounts, copies,
// snapshots and restore, scripts (with verifyScript), the clocks, faults,
// the request journal, webhook deliveries and the outbox with bounded
// waits, inbound calls and texts, do-not-call and consent, fixtures, the
// schedule, tenants, reset and health.
//
//   import { MockServer } from "./voiceagent-mock.mjs";
//
//   const mock = new MockServer();   // VOICEAGENT_MOCK_URL, VOICEAGENT_MOCK_ADMIN_TOKEN
//   const acct = await mock.newAccount({ business_name: "Test" });
//   await acct.script({ calls: [{ to: "+14155550100", outcome: "busy" }] });
//   const res = await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+14155550100" });
//   await acct.advance(60);
//   await acct.verifyScript();         // throws ScriptNotUsedError naming each unused step
//
// A MockServer is the server (its root URL and admin token); an Account is
// a tenant made on it (apiKey, businessId, agentId, phoneNumber, ...) with
// the helpers about that tenant. Bodies (account options, fault rules,
// script steps, fixtures) are the admin API's JSON as admin.yaml describes
// it; filters take camelCase names (businessId, subscriptionId, ...); waits
// and timeouts are milliseconds. A refused admin request throws MockError
// with the response's status, error code, message and details. api() sends
// a request to the API under /api and resolves to the response whatever
// its status. testAccount(t) makes an account per node:test test.

const DEFAULT_URL = "http://127.0.0.1:8080";

// The server waits at most this long (ms) in one long-poll (?wait=).
const MAX_SERVER_WAIT = 60_000;

/** An error response of the mock server: status and the spec's error fields. */
export class MockError extends Error {
  constructor(method, path, status, body, requestId = "") {
    const error = body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : {};
    const code = error.code ?? "";
    const message = error.message ?? (body == null ? "" : String(body));
    const details = Array.isArray(error.details) ? error.details : [];
    let text = `${method} ${path}: ${status}`;
    if (code) text += ` ${code}`;
    if (message) text += `: ${message}`;
    for (const d of details) {
      const detail = `${d.path}: ${d.message}`;
      if (!message.includes(detail)) text += ` (${detail})`;
    }
    super(text);
    this.name = "MockError";
    this.method = method;
    this.path = path;
    this.status = status;
    this.body = body;
    this.requestId = requestId;
    this.error = error;
    this.code = code;
    this.details = details;
  }
}

/** Thrown by verifyScript when steps of a script were not used; steps holds them. */
export class ScriptNotUsedError extends Error {
  constructor(steps) {
    super(steps.map((s) => `script step ${s.id} was not used: a ${s.kind} to ${s.to}, ${s.outcome}`).join("\n"));
    this.name = "ScriptNotUsedError";
    this.steps = steps;
  }
}

/** Thrown by the wait helpers when what they wait for did not come in time. */
export class MockTimeoutError extends Error {
  constructor(message, got) {
    super(message);
    this.name = "MockTimeoutError";
    this.got = got;
  }
}

// goDuration formats milliseconds as a Go duration for ?wait=.
function goDuration(ms) {
  return `${Math.max(1, Math.round(ms))}ms`;
}

// waitParam adds ?wait= to params for a long-poll of wait ms (at most 60 s)
// and returns the wait (0 without one).
function waitParam(params, wait) {
  if (wait === undefined) return 0;
  wait = Math.min(wait, MAX_SERVER_WAIT);
  params.wait = goDuration(wait);
  return wait;
}

// until calls fetch(ms left) until done(result) or timeout ms passed, and
// resolves to the result; it throws MockTimeoutError with failure(result)
// when the time is up first.
async function until(timeout, fetch, done, failure) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const got = await fetch(Math.max(1, deadline - Date.now()));
    if (done(got)) return got;
    if (Date.now() >= deadline) throw new MockTimeoutError(failure(got), got);
  }
}

// snake turns a camelCase filter name into the query parameter's name.
function snake(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

// query encodes the parameters that are not undefined or null.
function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null) q.append(snake(k), String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

// compact returns o without its undefined values.
function compact(o) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

async function decode(resp) {
  const text = await resp.text();
  if (!text) return null;
  if ((resp.headers.get("content-type") ?? "").includes("json")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The mock server: its root URL and admin token. */
export class MockServer {
  /**
   * url defaults to VOICEAGENT_MOCK_URL (else http://127.0.0.1:8080) and
   * adminToken to VOICEAGENT_MOCK_ADMIN_TOKEN; timeout (ms) bounds each
   * request, besides any wait it asks the server for; receiverHost is the
   * host name the server reaches this machine's loopback at (receiverURL).
   */
  constructor({ url, adminToken, timeout = 30_000, receiverHost } = {}) {
    this.url = (url ?? process.env.VOICEAGENT_MOCK_URL ?? DEFAULT_URL).replace(/\/+$/, "");
    this.adminToken = adminToken ?? process.env.VOICEAGENT_MOCK_ADMIN_TOKEN ?? "";
    this.timeout = timeout;
    this.receiverHost = receiverHost ?? process.env.VOICEAGENT_MOCK_RECEIVER_HOST ?? "127.0.0.1";
  }

  /**
   * receiverURL is the URL at which the server reaches a receiver
   * listening on this machine's loopback, at receiverHost
   * (VOICEAGENT_MOCK_RECEIVER_HOST, else 127.0.0.1; 10.0.2.2 for a podman
   * container started with --network slirp4netns:allow_host_loopback=true).
   */
  receiverURL(port, path = "/") {
    return `http://${this.receiverHost}:${port}${path}`;
  }

  /** The API's base URL (ending with /api), for an SDK or HTTP client. */
  get baseURL() {
    return `${this.url}/api`;
  }

  /** The admin API's root (/_mock). */
  get adminURL() {
    return `${this.url}/_mock`;
  }

  async #send(method, url, { body, token, headers, timeout } = {}) {
    const h = { Accept: "application/json", ...headers };
    if (body !== undefined) h["Content-Type"] = "application/json";
    if (token) h.Authorization = `Bearer ${token}`;
    const resp = await fetch(url, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeout ?? this.timeout),
    });
    return {
      status: resp.status,
      headers: resp.headers,
      body: await decode(resp),
      requestId: resp.headers.get("x-request-id") ?? "",
    };
  }

  async #checked(method, target, body, wait = 0) {
    const res = await this.#send(method, this.url + target, { body, token: this.adminToken, timeout: this.timeout + wait });
    if (res.status < 200 || res.status > 299) throw new MockError(method, target, res.status, res.body, res.requestId);
    return res.body;
  }

  /**
   * admin sends one admin request (path under /_mock) and resolves to the
   * decoded body; it throws MockError for an error status. params are query
   * parameters (camelCase names become snake_case); wait is how long (ms)
   * the server may hold the request, added to the timeout.
   */
  admin(method, path, { body, params = {}, wait = 0 } = {}) {
    return this.#checked(method, `/_mock${path}${query(params)}`, body, wait);
  }

  /**
   * api sends a request to the API (path under /api, such as /v1/calls)
   * with apiKey as the bearer token, and resolves to {status, headers,
   * body, requestId} whatever the status.
   */
  api(method, path, body, { apiKey, headers } = {}) {
    return this.#send(method, this.baseURL + path, { body, token: apiKey, headers });
  }

  // Index, health and documents.

  /** GET /: the server's index. */
  index() {
    return this.#checked("GET", "/");
  }

  /** GET /api: the server's index at the API's base. */
  apiIndex() {
    return this.#checked("GET", "/api");
  }

  /** GET /_mock: the server's index at the admin API's root. */
  adminIndex() {
    return this.admin("GET", "");
  }

  /** GET /_mock/health: {status: "ok", version} once the server serves. */
  health() {
    return this.admin("GET", "/health");
  }

  /** Polls /_mock/health until it answers 200 (a container starting), at most timeout ms. */
  async waitHealthy({ timeout = 30_000 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        return await this.health();
      } catch (err) {
        if (Date.now() >= deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** GET /_mock/openapi.yaml: the admin API's OpenAPI document, as text. */
  adminOpenAPI() {
    return this.admin("GET", "/openapi.yaml");
  }

  /** GET /_mock/ui: the dashboard page (HTML). */
  dashboard() {
    return this.admin("GET", "/ui");
  }

  /** GET /_mock/ui/app.css: the dashboard's style sheet. */
  dashboardStyle() {
    return this.admin("GET", "/ui/app.css");
  }

  /** GET /_mock/ui/app.js: the dashboard's script. */
  dashboardScript() {
    return this.admin("GET", "/ui/app.js");
  }

  // Accounts, tenants, copies and snapshots.

  /** POST /_mock/reset: drops all state; seed "none" leaves out the seed accounts. */
  reset({ seed } = {}) {
    return this.admin("POST", "/reset", { params: { seed } });
  }

  /** POST /_mock/accounts: a ready tenant ({business_name, email, scopes, operator, partner}). */
  async newAccount(options = {}) {
    return new Account(this, await this.admin("POST", "/accounts", { body: options }));
  }

  /** POST /_mock/accounts/copy: a new tenant holding a copy of that tenant; its ids map old ids to new. */
  async copyAccount(businessId) {
    return new Account(this, await this.admin("POST", "/accounts/copy", { body: { business_id: businessId } }));
  }

  /**
   * DELETE /_mock/accounts/{business_id}: deletes the tenant of that root
   * business (every record, its clock and pending work, its script, fault
   * rules, rate-limit counters and log entries; its key and session get 401
   * afterwards). Resolves to {deleted: businessId}; MockError 404 when no
   * such business exists.
   */
  deleteAccount(businessId) {
    return this.admin("DELETE", `/accounts/${encodeURIComponent(businessId)}`);
  }

  /**
   * DELETE /_mock/rate-limits: clears rate-limit counters: clientIp's only
   * (signup's 5 an hour per IP: a suite signing up many accounts clears its
   * own address between signups), a tenant's keys' and sessions'
   * (businessId), or every counter with neither. Resolves to {cleared, ...}.
   */
  clearRateLimits({ clientIp, businessId } = {}) {
    return this.admin("DELETE", "/rate-limits", { params: { clientIp, businessId } });
  }

  /** GET /_mock/tenants: every tenant with its clock, oldest first. */
  async tenants() {
    return (await this.admin("GET", "/tenants")).tenants;
  }

  /** GET /_mock/snapshot: the tenant's snapshot document, or the whole server's. */
  snapshot(businessId) {
    return this.admin("GET", "/snapshot", { params: { businessId } });
  }

  /** POST /_mock/snapshot: restores a document; resolves to {restored, server}. */
  restore(snapshot) {
    return this.admin("POST", "/snapshot", { body: snapshot });
  }

  /** POST /_mock/fixtures: accounts with their leads and calls; resolves to Accounts. */
  async loadFixtures(accounts) {
    const got = await this.admin("POST", "/fixtures", { body: { accounts } });
    return got.accounts.map((a) => new Account(this, a));
  }

  /** POST /_mock/leads: leads stored in a business as given, all or nothing; resolves to their ids. */
  async seedLeads(businessId, leads) {
    const got = await this.admin("POST", "/leads", { body: { business_id: businessId, leads } });
    return got.ids;
  }

  /** POST /_mock/calls: finished calls stored in a business as given, all or nothing; resolves to their ids. */
  async seedCalls(businessId, calls) {
    const got = await this.admin("POST", "/calls", { body: { business_id: businessId, calls } });
    return got.ids;
  }

  // Clocks and the schedule.

  /** GET /_mock/clock: {now, pending} of a tenant, or the base time. */
  clock(businessId) {
    return this.admin("GET", "/clock", { params: { businessId } });
  }

  /** The simulated time (RFC 3339) of a tenant, or the base time. */
  async now(businessId) {
    return (await this.clock(businessId)).now;
  }

  /** POST /_mock/clock/advance: moves a tenant's clock (or every clock) by seconds; resolves to the clock. */
  advance(seconds, businessId) {
    return this.admin("POST", "/clock/advance", { body: compact({ seconds, business_id: businessId }) });
  }

  /** GET /_mock/schedule: the tenant's pending work, {business_id, now, tasks}. */
  schedule(businessId) {
    return this.admin("GET", "/schedule", { params: { businessId } });
  }

  // Faults.

  /** GET /_mock/faults: the fault rules, each with how often it fired. */
  async faults() {
    return (await this.admin("GET", "/faults")).faults;
  }

  /** POST /_mock/faults: adds a rule ({method, path, status, latency_ms, drop, ...}). */
  addFault(rule) {
    return this.admin("POST", "/faults", { body: rule });
  }

  /** DELETE /_mock/faults?id=: removes one rule (MockError 404 when none has the id). */
  removeFault(id) {
    return this.admin("DELETE", "/faults", { params: { id } });
  }

  /** DELETE /_mock/faults: removes every rule. */
  clearFaults() {
    return this.admin("DELETE", "/faults");
  }

  // Request journal.

  /**
   * GET /_mock/requests: the journal, {requests, count, latest_seq}.
   * Filters: method, path, status, businessId, after, limit; wait (ms, at
   * most 60 s) long-polls for a new matching entry.
   */
  requests({ wait, ...filter } = {}) {
    const params = { ...filter };
    return this.admin("GET", "/requests", { params, wait: waitParam(params, wait) });
  }

  /**
   * waitRequests waits up to timeout ms for journal entries matching the
   * filter after seq after (0: the entries already kept count) and
   * resolves to them; it throws MockTimeoutError when none came.
   */
  waitRequests({ timeout = 10_000, after = 0, ...filter } = {}) {
    return until(timeout, async (left) => (await this.requests({ ...filter, after, wait: left })).requests,
      (got) => got.length > 0, () => `no request matching ${JSON.stringify(filter)} within ${timeout} ms`);
  }

  // Webhook deliveries.

  /**
   * GET /_mock/deliveries: deliveries with their attempts. Filters: kind,
   * subscriptionId, callId, approvalRequestId, businessId, eventId, event,
   * status, minAttempts; wait (ms, at most 60 s) long-polls until count
   * (default 1) match.
   */
  async deliveries({ wait, ...filter } = {}) {
    const params = { ...filter };
    return (await this.admin("GET", "/deliveries", { params, wait: waitParam(params, wait) })).deliveries;
  }

  /** waitDeliveries waits up to timeout ms until count deliveries match; throws MockTimeoutError with what matched. */
  waitDeliveries({ count = 1, timeout = 10_000, ...filter } = {}) {
    return until(timeout, (left) => this.deliveries({ ...filter, count, wait: left }), (got) => got.length >= count,
      (got) => `${got.length} of ${count} deliveries matching ${JSON.stringify(filter)} within ${timeout} ms`);
  }

  /** POST /_mock/deliveries/replay: sends a delivery again; resolves to the new delivery. */
  replayDelivery(deliveryId) {
    return this.admin("POST", "/deliveries/replay", { body: { delivery_id: deliveryId } });
  }

  /** POST /_mock/events: emits an event now (sample data when data is undefined). */
  emitEvent(businessId, event, data) {
    return this.admin("POST", "/events", { body: compact({ business_id: businessId, event, data }) });
  }

  /**
   * POST /_mock/receiver-checks: runs the receiver checks now against url
   * and secret (whsec_...), or against subscriptionId; events limits the
   * accepts_valid checks. Resolves to {url, passed, checks}.
   */
  receiverCheck({ url, secret, subscriptionId, events } = {}) {
    return this.admin("POST", "/receiver-checks", { body: compact({ url, secret, subscription_id: subscriptionId, events }) });
  }

  // Outbox.

  /** GET /_mock/outbox: emails and texts sent to people, oldest first; wait (ms) long-polls. */
  async outbox({ to, businessId, wait } = {}) {
    const params = { to, businessId };
    return (await this.admin("GET", "/outbox", { params, wait: waitParam(params, wait) })).messages;
  }

  /** waitOutbox waits up to timeout ms for a message; throws MockTimeoutError. */
  waitOutbox({ to, businessId, timeout = 10_000 } = {}) {
    return until(timeout, (left) => this.outbox({ to, businessId, wait: left }), (got) => got.length > 0,
      () => `no message to ${to ?? "anyone"} within ${timeout} ms`);
  }

  // Telephony.

  /** POST /_mock/inbound-call: a caller rings a platform number ({to, from, caller, answered, voicemail, duration}). */
  inboundCall(call) {
    return this.admin("POST", "/inbound-call", { body: call });
  }

  /** POST /_mock/inbound-sms: a person texts a platform number ({to, from, body}). */
  inboundSMS(text) {
    return this.admin("POST", "/inbound-sms", { body: text });
  }

  /** POST /_mock/dnc: puts a number on the national registry (or a business's list), or takes it off. */
  setDNC({ phone, businessId, onList = true }) {
    return this.admin("POST", "/dnc", { body: compact({ phone, business_id: businessId, on_list: onList }) });
  }

  /** Puts a number on a do-not-call list (the national registry without businessId). */
  addDNC(phone, businessId) {
    return this.setDNC({ phone, businessId, onList: true });
  }

  /** Takes a number off a do-not-call list. */
  removeDNC(phone, businessId) {
    return this.setDNC({ phone, businessId, onList: false });
  }

  /** POST /_mock/consent: sets a number's SMS consent (opted_in, opted_out or none). */
  setConsent(businessId, phone, status) {
    return this.admin("POST", "/consent", { body: { business_id: businessId, phone, status } });
  }

  /** GET /_mock/consent: {status, on_dnc} of a number towards a business. */
  consent(businessId, phone) {
    return this.admin("GET", "/consent", { params: { businessId, phone } });
  }

  /** GET /_mock/calls: the calls of every tenant, or of one, newest first. */
  calls({ businessId, status, limit } = {}) {
    return this.admin("GET", "/calls", { params: { businessId, status, limit } });
  }

  /** GET /_mock/provider-calls: what the simulated voice provider received for a call. */
  providerCall(callId) {
    return this.admin("GET", "/provider-calls", { params: { callId } });
  }

  /** GET /_mock/prompt-audit: the audit trail of an agent's prompt changes. */
  async promptAudit(agentId) {
    return (await this.admin("GET", "/prompt-audit", { params: { agentId } })).entries;
  }

  // Scripts.

  /** POST /_mock/scripts: adds call and text steps to the tenant's script; resolves to the steps. */
  async addScript(businessId, { calls, texts } = {}) {
    return (await this.admin("POST", "/scripts", { body: compact({ business_id: businessId, calls, texts }) })).steps;
  }

  /** GET /_mock/scripts: the tenant's steps, used and pending, oldest first. */
  async scriptSteps(businessId) {
    return (await this.admin("GET", "/scripts", { params: { businessId } })).steps;
  }

  /** DELETE /_mock/scripts: removes the pending steps; resolves to how many. */
  async clearScript(businessId) {
    return (await this.admin("DELETE", "/scripts", { params: { businessId } })).deleted;
  }

  /** verifyScript throws ScriptNotUsedError naming each step no call or text used. */
  async verifyScript(businessId) {
    const unused = (await this.scriptSteps(businessId)).filter((s) => s.status !== "used");
    if (unused.length > 0) throw new ScriptNotUsedError(unused);
  }

  // The outbound-sales pipeline.

  /** POST /_mock/sdr/cron: runs the SDR scheduled runner now; resolves to {runs}. */
  runSDRCron() {
    return this.admin("POST", "/sdr/cron");
  }
}

/**
 * A tenant on a mock server, with the helpers about it. Its properties are
 * the fields POST /_mock/accounts answers, in camelCase (apiKey,
 * businessId, agentId, phoneNumber, userId, session, partnerId,
 * referralCode); a copy also has ids. fields holds the response as sent.
 */
export class Account {
  constructor(server, fields) {
    this.server = server;
    this.fields = fields;
    this.apiKey = fields.api_key;
    this.businessId = fields.business_id;
    this.agentId = fields.agent_id ?? "";
    this.phoneNumber = fields.phone_number ?? "";
    this.userId = fields.user_id ?? "";
    this.session = fields.session ?? "";
    this.partnerId = fields.partner_id ?? "";
    this.referralCode = fields.referral_code ?? "";
    this.ids = fields.ids ?? {};
  }

  /** Sends a request to the API (path under /api) with the account's key. */
  api(method, path, body, { headers } = {}) {
    return this.server.api(method, path, body, { apiKey: this.apiKey, headers });
  }

  /** The tenant's clock: {now, business_id, pending}. */
  clock() {
    return this.server.clock(this.businessId);
  }

  /** The tenant's simulated time (RFC 3339). */
  now() {
    return this.server.now(this.businessId);
  }

  /** Moves the tenant's clock only; what falls due runs. Resolves to the clock. */
  advance(seconds) {
    return this.server.advance(seconds, this.businessId);
  }

  /** The tenant's pending work. */
  schedule() {
    return this.server.schedule(this.businessId);
  }

  /** Deletes the tenant (MockServer.deleteAccount): its key then gets 401. */
  delete() {
    return this.server.deleteAccount(this.businessId);
  }

  /** Deletes the tenant unless it is gone already: a test's cleanup. */
  async deleteQuietly() {
    try {
      await this.delete();
    } catch (err) {
      if (!(err instanceof MockError && err.status === 404)) throw err;
    }
  }

  /** A new tenant holding a copy of this one. */
  copy() {
    return this.server.copyAccount(this.businessId);
  }

  /** The tenant's snapshot document. */
  snapshot() {
    return this.server.snapshot(this.businessId);
  }

  /** Restores a snapshot document (this tenant's, taken earlier). */
  restore(snapshot) {
    return this.server.restore(snapshot);
  }

  /** Adds steps ({calls, texts}) to the tenant's script. */
  script(steps) {
    return this.server.addScript(this.businessId, steps);
  }

  /** The tenant's script steps, used and pending. */
  scriptSteps() {
    return this.server.scriptSteps(this.businessId);
  }

  /** Removes the tenant's pending steps; resolves to how many. */
  clearScript() {
    return this.server.clearScript(this.businessId);
  }

  /** Throws ScriptNotUsedError naming each step nothing used. */
  verifyScript() {
    return this.server.verifyScript(this.businessId);
  }

  /** The journal of the tenant's requests. */
  requests(filter = {}) {
    return this.server.requests({ ...filter, businessId: this.businessId });
  }

  /** Waits for a journal entry of the tenant. */
  waitRequests(options = {}) {
    return this.server.waitRequests({ ...options, businessId: this.businessId });
  }

  /** The tenant's webhook deliveries. */
  deliveries(filter = {}) {
    return this.server.deliveries({ ...filter, businessId: this.businessId });
  }

  /** Waits until count deliveries of the tenant match. */
  waitDeliveries(options = {}) {
    return this.server.waitDeliveries({ ...options, businessId: this.businessId });
  }

  /** Messages sent for the tenant. */
  outbox(options = {}) {
    return this.server.outbox({ ...options, businessId: this.businessId });
  }

  /** Waits for a message sent for the tenant. */
  waitOutbox(options = {}) {
    return this.server.waitOutbox({ ...options, businessId: this.businessId });
  }

  /** Adds a fault rule that fires on the tenant's requests only. */
  addFault(rule) {
    return this.server.addFault({ ...rule, business_id: this.businessId });
  }

  /** Emits an event of the tenant's business now. */
  emitEvent(event, data) {
    return this.server.emitEvent(this.businessId, event, data);
  }

  /** A caller rings the account's number (unless to is given). */
  inboundCall(call) {
    return this.server.inboundCall({ to: this.phoneNumber, ...call });
  }

  /** A person texts the account's number (unless to is given). */
  inboundSMS(text) {
    return this.server.inboundSMS({ to: this.phoneNumber, ...text });
  }

  /** Sets a number's SMS consent towards the account's business. */
  setConsent(phone, status) {
    return this.server.setConsent(this.businessId, phone, status);
  }

  /** A number's consent and do-not-call state towards the account's business. */
  consent(phone) {
    return this.server.consent(this.businessId, phone);
  }

  /** Puts a number on the business's own do-not-call list. */
  addDNC(phone) {
    return this.server.addDNC(phone, this.businessId);
  }

  /** Takes a number off the business's own do-not-call list. */
  removeDNC(phone) {
    return this.server.removeDNC(phone, this.businessId);
  }

  /** The tenant's calls, newest first. */
  calls(filter = {}) {
    return this.server.calls({ ...filter, businessId: this.businessId });
  }
}

let shared;

/** The MockServer of VOICEAGENT_MOCK_URL and VOICEAGENT_MOCK_ADMIN_TOKEN, one per process. */
export function sharedServer() {
  shared ??= new MockServer();
  return shared;
}

/**
 * testAccount makes an account for a node:test test, named after it:
 *
 *   test("a call", async (t) => {
 *     const acct = await testAccount(t, { verifyScript: true });
 *   });
 *
 * The account is deleted in t.after, so the shared server keeps only what
 * running tests use. With verifyScript, its script is verified first, so a
 * step left unused fails the test. server defaults to sharedServer(); the
 * other options are those of POST /_mock/accounts.
 */
export async function testAccount(t, { server = sharedServer(), verifyScript = false, ...options } = {}) {
  const acct = await server.newAccount({ business_name: String(t.name).slice(0, 200), ...options });
  t.after(async () => {
    try {
      if (verifyScript) await acct.verifyScript();
    } finally {
      await acct.deleteQuietly();
    }
  });
  return acct;
}
