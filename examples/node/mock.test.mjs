// A test suite in Node.js against the voiceagent mock server, written with
// the Node.js client (clients/node/voiceagent-mock.mjs: one file, no
// dependencies, to copy into a suite) and node:test.
//
//   VOICEAGENT_MOCK_URL=http://127.0.0.1:8080 VOICEAGENT_MOCK_ADMIN_TOKEN=t \
//     node --test examples/node/
//
// VOICEAGENT_MOCK_URL is the server's root (default http://127.0.0.1:8080);
// VOICEAGENT_MOCK_ADMIN_TOKEN the admin token (none for a binary on
// loopback started without one).
import { test } from "node:test";
import assert from "node:assert/strict";
// A suite of your own keeps a copy of voiceagent-mock.mjs beside its tests.
import { MockError, MockServer, sharedServer, testAccount } from "../../clients/node/voiceagent-mock.mjs";

const mock = sharedServer();

test("health answers with the admin token", async () => {
  assert.equal((await mock.health()).status, "ok");
});

test("the admin API refuses a wrong token", { skip: !mock.adminToken && process.env.CI !== "true" }, async () => {
  const wrong = new MockServer({ adminToken: "not-the-token" });
  await assert.rejects(wrong.health(), (err) => err instanceof MockError && err.status === 401);
});

test("a call completes when its tenant's clock moves", async (t) => {
  const acct = await testAccount(t);
  const created = await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+15551230001" });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await acct.advance(600);
  const got = await acct.api("GET", `/v1/calls?id=${created.body.id}`);
  assert.equal(got.body.status, "completed");
});

test("a scripted busy line", async (t) => {
  const acct = await testAccount(t, { verifyScript: true }); // a step nothing used fails the test
  await acct.script({ calls: [{ to: "+15551230005", outcome: "busy" }] });
  const created = await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+15551230005" });
  await acct.advance(60);
  const got = await acct.api("GET", `/v1/calls?id=${created.body.id}`);
  assert.deepEqual([got.body.status, got.body.error], ["failed", "busy"]);
});

test("a fault fires for its tenant only", async (t) => {
  const acct = await testAccount(t);
  const other = await testAccount(t);
  await acct.addFault({ method: "POST", path: "/v1/calls", status: 503, times: 1 });
  const failed = await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+15551230003" });
  assert.equal(failed.status, 503);
  const fine = await other.api("POST", "/v1/calls", { agent_id: other.agentId, to: "+15551230003" });
  assert.equal(fine.status, 201);
});
