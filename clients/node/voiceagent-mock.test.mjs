// Tests of voiceagent-mock.mjs against a running mock server:
//
//   cd clients/node
//   VOICEAGENT_MOCK_URL=http://127.0.0.1:8080 VOICEAGENT_MOCK_ADMIN_TOKEN=t node --test
//
// Every test makes accounts of its own, except the last, which resets the
// server: run the suite against a server no other suite is using.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import {
  MockError, MockServer, MockTimeoutError, ScriptNotUsedError, sharedServer, testAccount,
} from "./voiceagent-mock.mjs";

const mock = sharedServer();

// receiver starts a webhook receiver on loopback that records each request
// and answers 204; its url is as the server reaches it (a server in a
// container reaches the host's loopback under another name); wait(n)
// resolves once n requests came.
async function receiver() {
  const got = [];
  let waiters = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(204).end();
      waiters = waiters.filter((w) => !w());
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: mock.receiverURL(server.address().port, "/hooks"),
    got,
    wait: (n, timeout = 10_000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${got.length} of ${n} requests`)), timeout);
      const check = () => {
        if (got.length < n) return false;
        clearTimeout(timer);
        resolve(got);
        return true;
      };
      if (!check()) waiters.push(check);
    }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test("health, index and documents", async () => {
  assert.equal((await mock.health()).status, "ok");
  for (const index of [await mock.index(), await mock.apiIndex(), await mock.adminIndex()]) {
    assert.equal(index.api, mock.baseURL);
    assert.equal(index.admin_api, mock.adminURL);
  }
  assert.match(await mock.adminOpenAPI(), /operationId: createAccount/);
  assert.match(await mock.dashboard(), /<html/);
  assert.match(await mock.dashboardStyle(), /\{/);
  assert.match(await mock.dashboardScript(), /\/_mock/);
});

test("a wrong admin token is refused", { skip: !mock.adminToken && process.env.CI !== "true" }, async () => {
  const other = new MockServer({ url: mock.url, adminToken: "not-the-token" });
  await assert.rejects(other.tenants(), (err) => err instanceof MockError && err.status === 401);
});

test("a refusal carries the error code and details", async (t) => {
  const acct = await testAccount(t);
  const err = await acct.script({ calls: [{ to: "+14155550100", outcome: "no-answer" }] }).catch((e) => e);
  assert.ok(err instanceof MockError, String(err));
  assert.equal(err.status, 400);
  assert.equal(err.code, "invalid_request");
  assert.ok(err.details.some((d) => d.path.startsWith("/calls/0")), JSON.stringify(err.details));
  assert.deepEqual(await acct.scriptSteps(), [], "nothing was added");
});

test("a call completes on its tenant's clock alone", async (t) => {
  const acct = await testAccount(t);
  const other = await testAccount(t);
  const created = await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+14155550101" });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const callId = created.body.id;
  assert.ok((await acct.schedule()).tasks.some((task) => task.subject_id === callId));
  assert.equal((await mock.providerCall(callId)).to, "+14155550101");
  assert.deepEqual((await acct.calls({ status: "active" })).calls.map((c) => c.id), [callId]);

  const otherBefore = await other.now();
  const clock = await acct.advance(600);
  assert.equal(clock.now, await acct.now());
  assert.equal((await acct.api("GET", `/v1/calls?id=${callId}`)).body.status, "completed");
  assert.equal(await other.now(), otherBefore, "another tenant's clock stays");
  assert.deepEqual((await acct.schedule()).tasks, []);
  const tenant = (await mock.tenants()).find((x) => x.business_id === acct.businessId);
  assert.equal(tenant.now, await acct.now());
});

test("script steps are used and verified", async (t) => {
  const acct = await testAccount(t);
  const to = "+14155550102";
  const steps = await acct.script({
    calls: [{
      to, outcome: "completed", duration: 42, summary: "Booked Tuesday.",
      transcript: [{ role: "agent", text: "Hi, this is Ava." }, { role: "caller", text: "Tuesday works." }],
    }],
  });
  assert.deepEqual(steps.map((s) => s.status), ["pending"]);
  await assert.rejects(acct.verifyScript(), (err) => err instanceof ScriptNotUsedError && err.message.includes(`a call to ${to}, completed`));

  const call = (await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to })).body;
  await acct.advance(600);
  const got = (await acct.api("GET", `/v1/calls?id=${call.id}`)).body;
  assert.deepEqual([got.status, got.summary, got.duration], ["completed", "Booked Tuesday.", 42]);
  const used = await acct.scriptSteps();
  assert.deepEqual([used[0].status, used[0].used_by], ["used", call.id]);
  await acct.verifyScript();

  await acct.script({ texts: [{ to, outcome: "failed" }] });
  await assert.rejects(acct.verifyScript(), (err) => err.steps.length === 1 && err.message.includes(`a text to ${to}, failed`));
  assert.equal(await acct.clearScript(), 1);
  await acct.verifyScript();
});

test("testAccount verifies the script in t.after, then deletes the account", async (t) => {
  const hooks = [];
  const fake = { name: "a test that leaves a step", after: (fn) => hooks.push(fn) };
  const acct = await testAccount(fake, { verifyScript: true });
  assert.equal(hooks.length, 1);
  const tenant = (await mock.tenants()).find((x) => x.business_id === acct.businessId);
  assert.equal(tenant.business_name, "a test that leaves a step");
  await acct.script({ calls: [{ to: "+14155550109", outcome: "busy" }] });
  await assert.rejects(hooks[0](), ScriptNotUsedError);
  assert.ok(!(await mock.tenants()).some((x) => x.business_id === acct.businessId), "deleted even so");

  const plain = [];
  const other = await testAccount({ name: t.name, after: (fn) => plain.push(fn) });
  await other.script({ calls: [{ to: "+14155550109", outcome: "busy" }] });
  assert.equal(plain.length, 1, "the delete");
  await plain[0](); // no verifyScript: the unused step does not fail it
  assert.equal((await other.api("GET", "/v1/numbers")).status, 401);
  await plain[0](); // gone already: no error
});

test("a deleted account is gone", async (t) => {
  const acct = await testAccount(t);
  assert.equal((await acct.api("GET", "/v1/numbers")).status, 200);
  assert.deepEqual(await acct.delete(), { deleted: acct.businessId });
  assert.equal((await acct.api("GET", "/v1/numbers")).status, 401);
  assert.ok(!(await mock.tenants()).some((x) => x.business_id === acct.businessId));
  await assert.rejects(acct.snapshot(), (err) => err instanceof MockError && err.status === 404);
  await assert.rejects(acct.delete(), (err) => err instanceof MockError && err.code === "not_found");
});

test("rate-limit counters are cleared", async (t) => {
  const acct = await testAccount(t);
  const got = await mock.clearRateLimits({ businessId: acct.businessId });
  assert.equal(got.business_id, acct.businessId);
  assert.ok(got.cleared >= 0);
  assert.deepEqual(await mock.clearRateLimits({ clientIp: "203.0.113.9" }), { cleared: 0, client_ip: "203.0.113.9" });
  await assert.rejects(mock.clearRateLimits({ clientIp: "not-an-ip" }), (err) => err instanceof MockError && err.status === 400);
});

test("a scripted reply opts the number out; the text reaches the outbox", async (t) => {
  const acct = await testAccount(t, { verifyScript: true });
  const to = "+14155550103";
  await acct.setConsent(to, "opted_in");
  await acct.script({ texts: [{ to, outcome: "delivered", reply: { after_seconds: 60, body: "STOP" } }] });
  const sent = await acct.api("POST", "/v1/sms/send", { to, from_agent_id: acct.agentId, message: "Your visit is booked." });
  assert.equal(Math.floor(sent.status / 100), 2, JSON.stringify(sent.body));
  const messages = await acct.waitOutbox({ to, timeout: 5000 });
  assert.equal(messages[0].body, "Your visit is booked.");
  assert.equal((await acct.consent(to)).status, "opted_in");
  await acct.advance(120);
  assert.equal((await acct.consent(to)).status, "opted_out", "the scripted STOP arrived");
});

test("a scoped fault is journaled and removed", async (t) => {
  const acct = await testAccount(t);
  const other = await testAccount(t);
  const rule = await acct.addFault({ method: "POST", path: "/v1/calls", status: 503, times: 1 });
  assert.equal(rule.business_id, acct.businessId);
  assert.equal((await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+14155550104" })).status, 503);
  assert.equal((await other.api("POST", "/v1/calls", { agent_id: other.agentId, to: "+14155550104" })).status, 201);
  const [entry] = (await acct.requests({ path: "/v1/calls", status: 503 })).requests;
  assert.equal(entry.fault_id, rule.id);
  assert.equal((await mock.faults()).find((f) => f.id === rule.id).fired, 1);
  assert.deepEqual(await mock.removeFault(rule.id), { removed: rule.id });
  await assert.rejects(mock.removeFault(rule.id), (err) => err.status === 404 && err.code === "not_found");
});

test("a journal wait returns a request made meanwhile", async (t) => {
  const acct = await testAccount(t);
  const seq = (await acct.requests({ limit: 0 })).latest_seq;
  const later = new Promise((resolve) => setTimeout(resolve, 300)).then(() => acct.api("GET", "/v1/agents"));
  const entries = await acct.waitRequests({ after: seq, path: "/v1/agents", timeout: 10_000 });
  await later;
  assert.equal(entries[0].status, 200);
  assert.equal(entries[0].business_id, acct.businessId);
  assert.ok(!JSON.stringify(entries[0]).includes(acct.apiKey), "the key is redacted");
  await assert.rejects(acct.waitRequests({ after: entries.at(-1).seq, path: "/v1/agents", timeout: 200 }), MockTimeoutError);
});

test("a delivery reaches a loopback receiver and is replayed", async (t) => {
  const acct = await testAccount(t);
  const recv = await receiver();
  t.after(() => recv.close());
  const sub = await acct.api("POST", "/v1/webhooks", { business_id: acct.businessId, webhook_url: recv.url, events: ["call.completed"] });
  assert.equal(sub.status, 201, JSON.stringify(sub.body));
  const event = await acct.emitEvent("call.completed");
  assert.equal(event.data.status, "completed", "without data, the type's sample data");
  const [d] = await acct.waitDeliveries({ eventId: event.id, status: "succeeded", timeout: 10_000 });
  assert.equal(d.subscription_id, sub.body.id);
  let got = await recv.wait(1);
  assert.equal(got[0].headers["webhook-id"], d.message_id);
  assert.equal(JSON.parse(got[0].body).event, "call.completed");

  const replay = await mock.replayDelivery(d.id);
  assert.equal(replay.replay_of, d.id);
  got = await recv.wait(2);
  assert.equal(got[1].headers["webhook-id"], d.message_id, "a replay keeps the webhook-id");
  await assert.rejects(acct.waitDeliveries({ count: 3, eventId: event.id, timeout: 200 }), MockTimeoutError);
});

test("a receiver check of a receiver that verifies nothing", async (t) => {
  const acct = await testAccount(t);
  const recv = await receiver();
  t.after(() => recv.close());
  const sub = await acct.api("POST", "/v1/webhooks", { business_id: acct.businessId, webhook_url: recv.url });
  assert.equal(sub.status, 201, JSON.stringify(sub.body));
  let report = await mock.receiverCheck({ subscriptionId: sub.body.id, events: ["lead.created"] });
  assert.equal(report.passed, false);
  assert.equal(report.url, recv.url);
  for (const c of report.checks) {
    assert.equal(c.passed, !c.id.startsWith("rejects_"), JSON.stringify(c));
  }
  report = await mock.receiverCheck({ url: recv.url, secret: sub.body.secret, events: ["sms.sent"] });
  assert.equal(report.checks[0].event, "sms.sent");
  await assert.rejects(mock.receiverCheck({ secret: sub.body.secret }), (err) => err.status === 400);
  await assert.rejects(mock.receiverCheck({ url: recv.url, secret: "nope" }), (err) => err.status === 400);
  await assert.rejects(mock.receiverCheck({ subscriptionId: "00000000-0000-4000-8000-000000000000" }), (err) => err.status === 404);
});

test("inbound call and text, consent and do-not-call", async (t) => {
  const acct = await testAccount(t);
  const caller = "+14155550105";
  const call = await acct.inboundCall({ from: caller, caller: { name: "Ann Lee", said: "I need a quote" } });
  assert.deepEqual([call.direction, call.to], ["inbound", acct.phoneNumber]);
  await acct.advance(600);
  const leads = (await acct.api("GET", "/v1/leads")).body.leads;
  assert.ok(leads.some((l) => l.phone === caller), JSON.stringify(leads));
  assert.equal((await acct.consent(caller)).status, "opted_in", "a call grants consent");
  assert.equal((await acct.inboundSMS({ from: caller, body: "STOP" })).consent, "opted_out");
  assert.equal((await acct.consent(caller)).status, "opted_out");

  await acct.addDNC(caller);
  assert.equal((await acct.consent(caller)).on_dnc, true);
  const text = { to: caller, from_agent_id: acct.agentId, message: "Your quote is ready." };
  let refused = await acct.api("POST", "/v1/sms/send", text);
  assert.deepEqual([refused.status, refused.body.error.code], [400, "number_on_dnc"]);
  await acct.removeDNC(caller);
  assert.equal((await acct.consent(caller)).on_dnc, false);
  refused = await acct.api("POST", "/v1/sms/send", text);
  assert.equal(refused.body.error.code, "number_opted_out", "off the list, still opted out");
});

test("the prompt audit", async (t) => {
  const acct = await testAccount(t);
  const res = await acct.api("POST", "/v1/sms/update-prompt", { agent_id: acct.agentId, sms_prompt: "Be brief.", reason: "shorter texts" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const entries = await mock.promptAudit(acct.agentId);
  assert.deepEqual([entries.at(-1).new_value, entries.at(-1).reason], ["Be brief.", "shorter texts"]);
});

test("fixtures load leads and calls", async () => {
  const accounts = await mock.loadFixtures([{
    business_name: "Fixture Plumbing",
    leads: [{ name: "Maria Lopez", phone: "+14155550106" }],
    calls: [{ to: "+14155550106", duration: 90 }],
  }]);
  assert.equal(accounts.length, 1);
  const [acct] = accounts;
  assert.deepEqual((await acct.api("GET", "/v1/leads")).body.leads.map((l) => l.name), ["Maria Lopez"]);
  assert.deepEqual((await acct.calls()).calls.map((c) => [c.to, c.status]), [["+14155550106", "completed"]]);
});

test("leads and calls are seeded into an account", async (t) => {
  const acct = await testAccount(t);
  const leadIds = await mock.seedLeads(acct.businessId, [{ name: "Ana Ruiz", phone: "+14155550108" }]);
  const callIds = await mock.seedCalls(acct.businessId, [{ to: "+14155550108", duration: 60 }]);
  assert.equal(leadIds.length, 1);
  assert.deepEqual((await acct.calls()).calls.map((c) => c.id), callIds);
  await assert.rejects(mock.seedLeads(acct.businessId, [{ status: "nothing" }]), (e) => e.status === 400);
});

test("a copy runs on its own clock and a snapshot brings the original back", async (t) => {
  const acct = await testAccount(t);
  const call = (await acct.api("POST", "/v1/calls", { agent_id: acct.agentId, to: "+14155550107" })).body;
  const snapshot = await acct.snapshot();
  assert.equal(snapshot.format, "voiceagent-mock-snapshot");

  const copy = await acct.copy();
  t.after(() => copy.deleteQuietly());
  assert.notEqual(copy.businessId, acct.businessId);
  const copyCall = copy.ids[call.id];
  await copy.advance(600);
  assert.equal((await copy.api("GET", `/v1/calls?id=${copyCall}`)).body.status, "completed");
  assert.equal((await acct.api("GET", `/v1/calls?id=${call.id}`)).body.status, "queued");

  await acct.advance(600);
  assert.equal((await acct.api("GET", `/v1/calls?id=${call.id}`)).body.status, "completed");
  assert.deepEqual(await acct.restore(snapshot), { restored: [acct.businessId], server: false });
  assert.equal((await acct.api("GET", `/v1/calls?id=${call.id}`)).body.status, "queued");
});

test("the SDR runner runs enabled businesses only", async (t) => {
  const acct = await testAccount(t);
  const { runs } = await mock.runSDRCron();
  assert.ok(Array.isArray(runs));
  assert.ok(!JSON.stringify(runs).includes(acct.businessId), "SDR is off for a new account");
});

// Last: it drops every account of the server.
test("reset drops every account", async () => {
  const acct = await mock.newAccount({ business_name: "Before the reset" });
  assert.equal((await mock.reset({ seed: "none" })).seed_accounts, 0);
  assert.deepEqual(await mock.tenants(), []);
  assert.equal((await acct.api("GET", "/v1/agents")).status, 401);
  const got = await mock.reset();
  assert.equal(got.reset, true);
  assert.equal((await mock.tenants()).length, got.seed_accounts, "the seed accounts came back");
});
