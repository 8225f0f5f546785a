// A test suite in Node.js against the voiceagent mock server, over plain
// HTTP with node:test and fetch only (no npm packages).
//
//   VOICEAGENT_MOCK_URL=http://127.0.0.1:8080 VOICEAGENT_MOCK_ADMIN_TOKEN=t \
//     node --test examples/node/
//
// VOICEAGENT_MOCK_URL is the server's root (default http://127.0.0.1:8080);
// VOICEAGENT_MOCK_ADMIN_TOKEN the admin token (none for a binary on
// loopback started without one).
import { test } from "node:test";
import assert from "node:assert/strict";

const root = (process.env.VOICEAGENT_MOCK_URL ?? "http://127.0.0.1:8080").replace(/\/$/, "");
const baseURL = `${root}/api`;
const adminURL = `${root}/_mock`;
const adminToken = process.env.VOICEAGENT_MOCK_ADMIN_TOKEN ?? "";

// request sends one request and answers { status, body } (body decoded).
async function request(method, url, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const resp = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  return { status: resp.status, body: text ? JSON.parse(text) : null };
}

// admin calls the admin API with the admin token and fails on an error.
async function admin(method, path, body) {
  const { status, body: answer } = await request(method, adminURL + path, body, adminToken);
  assert.ok(status >= 200 && status < 300, `${method} /_mock${path}: ${status} ${JSON.stringify(answer)}`);
  return answer;
}

// newAccount makes a tenant of its own: business, agent, number, key.
async function newAccount(name) {
  const a = await admin("POST", "/accounts", { business_name: name });
  return {
    ...a,
    api: (method, path, body) => request(method, baseURL + path, body, a.api_key),
    advance: (seconds) => admin("POST", "/clock/advance", { seconds, business_id: a.business_id }),
  };
}

test("health answers with the admin token", async () => {
  const { status, body } = await request("GET", `${adminURL}/health`, undefined, adminToken);
  assert.equal(status, 200);
  assert.equal(body.status, "ok");
});

test("the admin API refuses a request without the token", { skip: !adminToken && process.env.CI !== "true" }, async () => {
  const { status } = await request("GET", `${adminURL}/health`);
  assert.equal(status, 401);
});

test("a call completes when its tenant's clock moves", async () => {
  const acct = await newAccount("Node call");
  const created = await acct.api("POST", "/v1/calls", { agent_id: acct.agent_id, to: "+15551230001" });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await acct.advance(600);
  const got = await acct.api("GET", `/v1/calls?id=${created.body.id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.status, "completed");
});

test("a fault fires for its tenant only", async () => {
  const acct = await newAccount("Node fault");
  const other = await newAccount("Node bystander");
  await admin("POST", "/faults", {
    business_id: acct.business_id, method: "POST", path: "/v1/calls", status: 503, times: 1,
  });
  const failed = await acct.api("POST", "/v1/calls", { agent_id: acct.agent_id, to: "+15551230003" });
  assert.equal(failed.status, 503);
  const fine = await other.api("POST", "/v1/calls", { agent_id: other.agent_id, to: "+15551230003" });
  assert.equal(fine.status, 201);
});
