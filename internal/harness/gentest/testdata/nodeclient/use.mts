// A program using the Node.js client (clients/node/voiceagent-mock.mjs)
// through its declarations (voiceagent-mock.d.mts), compiled by tsc in
// strict mode by TestNodeClientDeclarations: a declaration that no longer
// fits what a suite writes fails it.
import {
  Account, MockError, MockServer, MockTimeoutError, ScriptNotUsedError, sharedServer, testAccount,
  type Delivery, type JournalEntry, type ScriptStep, type Snapshot, type TestContextLike,
} from "./voiceagent-mock.mjs";

export async function suite(t: TestContextLike): Promise<string[]> {
  const mock: MockServer = new MockServer({ url: "http://127.0.0.1:8080", adminToken: "t", timeout: 5000, receiverHost: "10.0.2.2" });
  const shared: MockServer = sharedServer();
  const health = await mock.health();
  const version: string = health.version;
  const index = await shared.index();
  const base: string = index.api + mock.baseURL + mock.adminURL + mock.receiverURL(8090, "/hooks");

  const acct: Account = await testAccount(t, { verifyScript: true, business_name: "TS", scopes: ["calls:write"] });
  const other = await mock.newAccount({ partner: true });
  const steps: ScriptStep[] = await acct.script({
    calls: [{ to: "+14155550100", outcome: "completed", duration: 30, transcript: [{ role: "agent", text: "Hi" }] }],
    texts: [{ to: "*", outcome: "delivered", reply: { after_seconds: 60, body: "STOP" } }],
  });
  const usedBy: string | null = steps[0]?.used_by ?? null;
  const created = await acct.api<{ id: string; status: string }>("POST", "/v1/calls", { agent_id: acct.agentId, to: "+14155550100" });
  const callID: string = created.body.id;
  const clock = await acct.advance(600);
  const now: string = clock.now + (await acct.now());
  const tasks = (await acct.schedule()).tasks.map((task) => task.kind + task.subject_id);

  const rule = await acct.addFault({ method: "POST", path: "/v1/calls", status: 503, times: 1, retry_after: 0 });
  const fired: number = (await mock.faults()).find((f) => f.id === rule.id)?.fired ?? 0;
  await mock.removeFault(rule.id);
  await mock.clearFaults();

  const journal = await acct.requests({ path: "/v1/calls", status: 503, limit: 10 });
  const entries: JournalEntry[] = await acct.waitRequests({ after: journal.latest_seq, timeout: 1000 });
  const deliveries: Delivery[] = await acct.waitDeliveries({ count: 1, eventId: "e", status: "succeeded", timeout: 1000 });
  const replay: Delivery = await mock.replayDelivery(deliveries[0]?.id ?? "");
  const event = await acct.emitEvent("call.completed", { call_id: callID });
  const outbox = await acct.waitOutbox({ to: "+14155550100", timeout: 1000 });

  const inbound = await acct.inboundCall({ from: "+14155550101", caller: { name: "Ann" }, answered: true });
  const sms = await acct.inboundSMS({ from: "+14155550101", body: "STOP" });
  await acct.setConsent("+14155550101", "opted_in");
  const consent = await acct.consent("+14155550101");
  await acct.addDNC("+14155550101");
  await mock.setDNC({ phone: "+14155550101", onList: false });
  const calls = await acct.calls({ status: "active", limit: 5 });
  const provider = await mock.providerCall(callID);
  const audit = await mock.promptAudit(acct.agentId);

  const snapshot: Snapshot = await acct.snapshot();
  const copy = await acct.copy();
  const copied: string | undefined = copy.ids[callID];
  const restored = await acct.restore(snapshot);
  const fixtures: Account[] = await mock.loadFixtures([{ business_name: "F", leads: [{ name: "L" }], calls: [] }]);
  const reset = await mock.reset({ seed: "none" });
  const runs = (await mock.runSDRCron()).runs.length;
  const documents = (await mock.adminOpenAPI()) + (await mock.dashboard()) + (await mock.dashboardStyle()) + (await mock.dashboardScript());
  const tenants = (await mock.tenants()).map((x) => x.business_id + x.now);
  await acct.clearScript();
  await acct.verifyScript();
  await mock.waitHealthy({ timeout: 1000 });

  try {
    await mock.tenants();
  } catch (err) {
    if (err instanceof MockError) return [err.code, err.message, String(err.status), ...err.details.map((d) => d.path)];
    if (err instanceof ScriptNotUsedError) return err.steps.map((s) => s.id);
    if (err instanceof MockTimeoutError) return [String(err.got.length)];
  }
  return [
    version, base, other.partnerId, String(usedBy), now, ...tasks, String(fired), String(entries.length),
    replay.message_id, event.id, String(outbox.length), inbound.id, sms.consent, String(consent.on_dnc),
    String(calls.has_more), provider.prompt, String(audit.length), String(copied), String(restored.server),
    String(fixtures.length), String(reset.seed_accounts), String(runs), documents, ...tenants,
  ];
}
