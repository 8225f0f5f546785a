// TypeScript declarations of voiceagent-mock.mjs, the client of the
// voiceagent mock server's admin API. Bodies and responses are the admin
// API's JSON as openapi/admin.yaml describes it (snake_case members).

/** A JSON value as the server sends it. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** A field at fault in an error response. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error response of the mock server: status and the spec's error fields. */
export class MockError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
  readonly requestId: string;
  /** The whole {"error": {...}} object, with any member the route adds. */
  readonly error: { code?: string; message?: string; details?: ErrorDetail[]; [key: string]: unknown };
  readonly code: string;
  readonly details: ErrorDetail[];
}

/** Thrown by verifyScript when steps of a script were not used. */
export class ScriptNotUsedError extends Error {
  readonly steps: ScriptStep[];
}

/** Thrown by the wait helpers when what they wait for did not come in time; got is what matched. */
export class MockTimeoutError extends Error {
  readonly got: unknown[];
}

/** A response of the API under /api, whatever its status. */
export interface APIResponse<T = any> {
  status: number;
  headers: Headers;
  /** The decoded JSON body, the text of another content type, or null when empty. */
  body: T;
  requestId: string;
}

export interface Index {
  name: string;
  version: string;
  api: string;
  openapi: string;
  admin_api: string;
  admin_openapi: string;
  dashboard: string;
  health: string;
}

export interface Health {
  status: "ok";
  version: string;
}

export interface AccountOptions {
  business_name?: string;
  email?: string;
  scopes?: string[];
  operator?: boolean;
  partner?: boolean;
}

export interface AccountFields {
  api_key: string;
  business_id: string;
  agent_id: string;
  phone_number: string;
  user_id: string;
  session: string;
  partner_id?: string;
  referral_code?: string;
  /** A copy's: every copied record's id mapped to its copy's. */
  ids?: Record<string, string>;
}

export interface Tenant {
  business_id: string;
  business_name: string;
  email: string;
  now: string;
  pending: number;
}

export interface Clock {
  now: string;
  business_id?: string;
  pending: number;
}

export interface ScheduledTask {
  at: string;
  kind: string;
  subject_id: string;
  n?: number;
}

export interface Schedule {
  business_id: string;
  now: string;
  tasks: ScheduledTask[];
}

/** A snapshot document (format voiceagent-mock-snapshot, version 1). */
export interface Snapshot {
  format: "voiceagent-mock-snapshot";
  version: 1;
  taken_at: string;
  tenants: Array<{ business_id: string; now: string; tasks: ScheduledTask[]; [key: string]: unknown }>;
  server?: Record<string, unknown>;
}

export interface Restored {
  restored: string[];
  server: boolean;
}

export type FaultTarget = "request" | "voice_provider" | "storage" | "sms_provider" | "dependency";

export interface FaultRuleInput {
  business_id?: string;
  id?: string;
  method?: string;
  path?: string;
  target?: FaultTarget;
  status?: number;
  code?: string;
  message?: string;
  latency_ms?: number;
  drop?: boolean;
  after?: boolean;
  truncate?: boolean;
  probability?: number;
  times?: number;
  retry_after?: number;
}

export interface FaultRule extends FaultRuleInput {
  id: string;
  /** How many times the rule acted. */
  fired: number;
}

export interface JournalMessage {
  headers: Record<string, string[]>;
  body?: JSONValue;
  body_bytes: number;
  truncated?: boolean;
}

export interface JournalEntry {
  seq: number;
  request_id: string;
  method: string;
  path: string;
  query?: string;
  status: number;
  key_prefix?: string;
  business_id?: string;
  time: string;
  duration_ms: number;
  idempotent_replayed?: boolean;
  fault?: "status" | "latency" | "dropped" | "truncated";
  fault_id?: string;
  request: JournalMessage;
  response: JournalMessage;
}

export interface Journal {
  requests: JournalEntry[];
  count: number;
  latest_seq: number;
}

export interface RequestFilter {
  method?: string;
  path?: string;
  status?: number;
  businessId?: string;
  after?: number;
  limit?: number;
}

export type DeliveryKind = "subscription" | "call_webhook" | "approval_callback";
export type DeliveryStatus = "pending" | "succeeded" | "failed" | "canceled";

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  sent_at: string;
  url: string;
  method: string;
  request_headers: Record<string, string>;
  status_code: number;
  error?: string;
  duration_ms: number;
  response?: string;
}

export interface Delivery {
  id: string;
  kind: DeliveryKind;
  message_id: string;
  subscription_id?: string;
  call_id?: string;
  approval_request_id?: string;
  business_id: string;
  /** The root business of the tenant owning business_id. */
  tenant: string;
  event_id: string;
  event: string;
  content_type: string;
  body: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  next_attempt_at: string | null;
  replay_of?: string;
  reason?: string;
  created_at: string;
}

export interface DeliveryFilter {
  kind?: DeliveryKind;
  subscriptionId?: string;
  callId?: string;
  approvalRequestId?: string;
  businessId?: string;
  eventId?: string;
  event?: string;
  status?: DeliveryStatus;
  minAttempts?: number;
}

export interface Event {
  id: string;
  event: string;
  business_id: string;
  timestamp: string;
  data: Record<string, unknown> | null;
  created_at: string;
}

/** One receiver check and how the receiver answered it. */
export interface ReceiverCheck {
  id: string;
  event?: string;
  required: boolean;
  passed: boolean;
  status: number;
  duration_ms: number;
  detail: string;
}

/** The answer of POST /_mock/receiver-checks. */
export interface ReceiverCheckReport {
  url: string;
  passed: boolean;
  checks: ReceiverCheck[];
}

export interface OutboxMessage {
  business_id?: string;
  id: string;
  channel: "email" | "sms";
  to: string;
  from: string;
  subject?: string;
  body: string;
  otp_code?: string;
  link?: string;
  created_at: string;
}

export interface InboundCall {
  to: string;
  from: string;
  caller?: { name?: string; email?: string; phone?: string; said?: string; intent?: string };
  answered?: boolean;
  voicemail?: string;
  duration?: number;
}

export interface InboundCallResult {
  id: string;
  status: string;
  direction: "inbound";
  to: string;
  from: string | null;
  [key: string]: unknown;
}

export interface InboundSMS {
  to: string;
  from: string;
  body: string;
}

export type ConsentStatus = "opted_in" | "opted_out" | "none";

export interface InboundSMSResult {
  message_id: string;
  lead_id: string;
  consent: "opted_in" | "opted_out";
}

export interface DNCResult {
  phone: string;
  business_id: string | null;
  on_list: boolean;
}

export interface Consent {
  business_id: string;
  phone: string;
  status: ConsentStatus;
  on_dnc: boolean;
}

export interface AdminCall {
  id: string;
  business_id: string;
  status: string;
  direction: string;
  to: string;
  from?: string | null;
  duration?: number;
  created_at: string;
  [key: string]: unknown;
}

export interface ProviderCall {
  call_id: string;
  assistant_id: string;
  from: string;
  to: string;
  first_message: string;
  prompt: string;
  context?: string;
  variables: Record<string, unknown>;
  max_duration: number;
}

export interface PromptAuditEntry {
  id: string;
  agent_id: string;
  business_id: string;
  field: string;
  old_value: string;
  new_value: string;
  reason: string;
  actor_user_id: string;
  actor_key_prefix: string;
  created_at: string;
}

export type CallOutcome = "completed" | "no_answer" | "busy" | "voicemail" | "rejected";
export type TextOutcome = "delivered" | "failed";

export interface Turn {
  role: "agent" | "caller";
  text: string;
}

export interface CallStep {
  /** E.164, or "*" for any number. */
  to: string;
  outcome: CallOutcome;
  ring_seconds?: number;
  duration?: number;
  transcript?: Turn[];
  summary?: string;
  caller?: { name?: string; email?: string; intent?: string };
}

export interface TextStep {
  to: string;
  outcome: TextOutcome;
  reply?: { after_seconds?: number; body: string };
}

export interface Script {
  calls?: CallStep[];
  texts?: TextStep[];
}

export interface ScriptStep {
  id: string;
  business_id: string;
  kind: "call" | "text";
  to: string;
  outcome: CallOutcome | TextOutcome;
  ring_seconds?: number;
  duration?: number;
  transcript?: Turn[];
  summary?: string;
  caller?: { name?: string; email?: string; intent?: string };
  reply?: { after_seconds: number; body: string };
  status: "pending" | "used";
  used_by: string | null;
  used_at: string | null;
  created_at: string;
}

export interface FixtureAccount extends Omit<AccountOptions, "operator" | "partner"> {
  leads?: Record<string, unknown>[];
  calls?: Record<string, unknown>[];
}

export interface ServerOptions {
  /** The server's root; default VOICEAGENT_MOCK_URL, else http://127.0.0.1:8080. */
  url?: string;
  /** Default VOICEAGENT_MOCK_ADMIN_TOKEN. */
  adminToken?: string;
  /** Milliseconds each request may take, besides any wait it asks for (default 30000). */
  timeout?: number;
  /** The host name the server reaches this machine's loopback at; default VOICEAGENT_MOCK_RECEIVER_HOST, else 127.0.0.1. */
  receiverHost?: string;
}

/** The mock server: its root URL and admin token. */
export class MockServer {
  constructor(options?: ServerOptions);
  readonly url: string;
  readonly adminToken: string;
  readonly timeout: number;
  readonly receiverHost: string;
  /** The URL at which the server reaches a receiver on this machine's loopback. */
  receiverURL(port: number, path?: string): string;
  /** The API's base URL (ending with /api). */
  readonly baseURL: string;
  /** The admin API's root (/_mock). */
  readonly adminURL: string;

  admin<T = any>(method: string, path: string, options?: { body?: unknown; params?: Record<string, unknown>; wait?: number }): Promise<T>;
  api<T = any>(method: string, path: string, body?: unknown, options?: { apiKey?: string; headers?: Record<string, string> }): Promise<APIResponse<T>>;

  index(): Promise<Index>;
  apiIndex(): Promise<Index>;
  adminIndex(): Promise<Index>;
  health(): Promise<Health>;
  waitHealthy(options?: { timeout?: number }): Promise<Health>;
  adminOpenAPI(): Promise<string>;
  dashboard(): Promise<string>;
  dashboardStyle(): Promise<string>;
  dashboardScript(): Promise<string>;

  reset(options?: { seed?: "none" }): Promise<{ reset: true; seed_accounts: number }>;
  newAccount(options?: AccountOptions): Promise<Account>;
  copyAccount(businessId: string): Promise<Account>;
  deleteAccount(businessId: string): Promise<{ deleted: string }>;
  clearRateLimits(options?: { clientIp?: string; businessId?: string }): Promise<{ cleared: number; client_ip?: string; business_id?: string }>;
  tenants(): Promise<Tenant[]>;
  snapshot(businessId?: string): Promise<Snapshot>;
  restore(snapshot: Snapshot): Promise<Restored>;
  loadFixtures(accounts: FixtureAccount[]): Promise<Account[]>;
  seedLeads(businessId: string, leads: Record<string, unknown>[]): Promise<string[]>;
  seedCalls(businessId: string, calls: Record<string, unknown>[]): Promise<string[]>;

  clock(businessId?: string): Promise<Clock>;
  now(businessId?: string): Promise<string>;
  advance(seconds: number, businessId?: string): Promise<Clock>;
  schedule(businessId: string): Promise<Schedule>;

  faults(): Promise<FaultRule[]>;
  addFault(rule: FaultRuleInput): Promise<FaultRule>;
  removeFault(id: string): Promise<{ removed: string }>;
  clearFaults(): Promise<{ cleared: true }>;

  requests(filter?: RequestFilter & { wait?: number }): Promise<Journal>;
  waitRequests(options?: Omit<RequestFilter, "limit"> & { timeout?: number }): Promise<JournalEntry[]>;

  deliveries(filter?: DeliveryFilter & { wait?: number; count?: number }): Promise<Delivery[]>;
  waitDeliveries(options?: DeliveryFilter & { count?: number; timeout?: number }): Promise<Delivery[]>;
  replayDelivery(deliveryId: string): Promise<Delivery>;
  emitEvent(businessId: string, event: string, data?: Record<string, unknown>): Promise<Event>;
  receiverCheck(options: { url?: string; secret?: string; subscriptionId?: string; events?: string[] }): Promise<ReceiverCheckReport>;

  outbox(options?: { to?: string; businessId?: string; wait?: number }): Promise<OutboxMessage[]>;
  waitOutbox(options?: { to?: string; businessId?: string; timeout?: number }): Promise<OutboxMessage[]>;

  inboundCall(call: InboundCall): Promise<InboundCallResult>;
  inboundSMS(text: InboundSMS): Promise<InboundSMSResult>;
  setDNC(options: { phone: string; businessId?: string; onList?: boolean }): Promise<DNCResult>;
  addDNC(phone: string, businessId?: string): Promise<DNCResult>;
  removeDNC(phone: string, businessId?: string): Promise<DNCResult>;
  setConsent(businessId: string, phone: string, status: ConsentStatus): Promise<{ business_id: string; phone: string; status: ConsentStatus }>;
  consent(businessId: string, phone: string): Promise<Consent>;
  calls(filter?: { businessId?: string; status?: string; limit?: number }): Promise<{ calls: AdminCall[]; has_more: boolean }>;
  providerCall(callId: string): Promise<ProviderCall>;
  promptAudit(agentId: string): Promise<PromptAuditEntry[]>;

  addScript(businessId: string, script: Script): Promise<ScriptStep[]>;
  scriptSteps(businessId: string): Promise<ScriptStep[]>;
  clearScript(businessId: string): Promise<number>;
  verifyScript(businessId: string): Promise<void>;

  runSDRCron(): Promise<{ runs: Record<string, unknown>[] }>;
}

/** A tenant on a mock server, with the helpers about it. */
export class Account {
  constructor(server: MockServer, fields: AccountFields);
  readonly server: MockServer;
  readonly fields: AccountFields;
  readonly apiKey: string;
  readonly businessId: string;
  readonly agentId: string;
  readonly phoneNumber: string;
  readonly userId: string;
  readonly session: string;
  readonly partnerId: string;
  readonly referralCode: string;
  readonly ids: Record<string, string>;

  api<T = any>(method: string, path: string, body?: unknown, options?: { headers?: Record<string, string> }): Promise<APIResponse<T>>;
  clock(): Promise<Clock>;
  now(): Promise<string>;
  advance(seconds: number): Promise<Clock>;
  schedule(): Promise<Schedule>;
  delete(): Promise<{ deleted: string }>;
  deleteQuietly(): Promise<void>;
  copy(): Promise<Account>;
  snapshot(): Promise<Snapshot>;
  restore(snapshot: Snapshot): Promise<Restored>;
  script(steps: Script): Promise<ScriptStep[]>;
  scriptSteps(): Promise<ScriptStep[]>;
  clearScript(): Promise<number>;
  verifyScript(): Promise<void>;
  requests(filter?: Omit<RequestFilter, "businessId"> & { wait?: number }): Promise<Journal>;
  waitRequests(options?: Omit<RequestFilter, "businessId" | "limit"> & { timeout?: number }): Promise<JournalEntry[]>;
  deliveries(filter?: Omit<DeliveryFilter, "businessId"> & { wait?: number; count?: number }): Promise<Delivery[]>;
  waitDeliveries(options?: Omit<DeliveryFilter, "businessId"> & { count?: number; timeout?: number }): Promise<Delivery[]>;
  outbox(options?: { to?: string; wait?: number }): Promise<OutboxMessage[]>;
  waitOutbox(options?: { to?: string; timeout?: number }): Promise<OutboxMessage[]>;
  addFault(rule: Omit<FaultRuleInput, "business_id">): Promise<FaultRule>;
  emitEvent(event: string, data?: Record<string, unknown>): Promise<Event>;
  inboundCall(call: Omit<InboundCall, "to"> & { to?: string }): Promise<InboundCallResult>;
  inboundSMS(text: Omit<InboundSMS, "to"> & { to?: string }): Promise<InboundSMSResult>;
  setConsent(phone: string, status: ConsentStatus): Promise<{ business_id: string; phone: string; status: ConsentStatus }>;
  consent(phone: string): Promise<Consent>;
  addDNC(phone: string): Promise<DNCResult>;
  removeDNC(phone: string): Promise<DNCResult>;
  calls(filter?: { status?: string; limit?: number }): Promise<{ calls: AdminCall[]; has_more: boolean }>;
}

/** The MockServer of VOICEAGENT_MOCK_URL and VOICEAGENT_MOCK_ADMIN_TOKEN, one per process. */
export function sharedServer(): MockServer;

/** The part of node:test's TestContext testAccount uses. */
export interface TestContextLike {
  name: string;
  after(fn: () => unknown): void;
}

/** Makes an account for a node:test test, named after it, deleted in t.after; verifyScript checks its script first. */
export function testAccount(
  t: TestContextLike,
  options?: AccountOptions & { server?: MockServer; verifyScript?: boolean },
): Promise<Account>;
