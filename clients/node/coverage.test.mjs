// The client covers every operation of openapi/admin.yaml (no server
// needed): a new operation fails this test until it is added to the
// client and to the table below.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Account, MockServer } from "./voiceagent-mock.mjs";

const adminYAML = new URL("../../openapi/admin.yaml", import.meta.url);

// Every operation of admin.yaml and the MockServer method that covers it.
const operations = {
  getIndex: "index",
  getAPIIndex: "apiIndex",
  getAdminIndex: "adminIndex",
  getHealth: "health",
  getAdminOpenAPIDocument: "adminOpenAPI",
  reset: "reset",
  createAccount: "newAccount",
  copyAccount: "copyAccount",
  deleteAccount: "deleteAccount",
  clearRateLimits: "clearRateLimits",
  getSnapshot: "snapshot",
  restoreSnapshot: "restore",
  listOutbox: "outbox",
  listTenants: "tenants",
  getClock: "clock",
  getSchedule: "schedule",
  advanceClock: "advance",
  listRequests: "requests",
  listFaults: "faults",
  addFault: "addFault",
  clearFaults: "clearFaults",
  listDeliveries: "deliveries",
  replayDelivery: "replayDelivery",
  emitEvent: "emitEvent",
  runReceiverChecks: "receiverCheck",
  inboundCall: "inboundCall",
  inboundSms: "inboundSMS",
  setDnc: "setDNC",
  setConsent: "setConsent",
  getConsent: "consent",
  listAllCalls: "calls",
  getProviderCall: "providerCall",
  getPromptAudit: "promptAudit",
  addScript: "addScript",
  listScript: "scriptSteps",
  clearScript: "clearScript",
  loadFixtures: "loadFixtures",
  seedLeads: "seedLeads",
  seedCalls: "seedCalls",
  runSdrSchedulerNow: "runSDRCron",
  getDashboard: "dashboard",
  getDashboardStyle: "dashboardStyle",
  getDashboardScript: "dashboardScript",
};

// The operations about one tenant and their Account form.
const accountOperations = {
  copyAccount: "copy",
  deleteAccount: "delete",
  getSnapshot: "snapshot",
  restoreSnapshot: "restore",
  listOutbox: "outbox",
  getClock: "clock",
  getSchedule: "schedule",
  advanceClock: "advance",
  listRequests: "requests",
  addFault: "addFault",
  listDeliveries: "deliveries",
  emitEvent: "emitEvent",
  inboundCall: "inboundCall",
  inboundSms: "inboundSMS",
  setDnc: "addDNC",
  setConsent: "setConsent",
  getConsent: "consent",
  listAllCalls: "calls",
  addScript: "script",
  listScript: "scriptSteps",
  clearScript: "clearScript",
};

const httpMethods = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

// adminOperations returns {operationId: [METHOD, path]} of an OpenAPI
// document's paths: a minimal reader of the layout admin.yaml is written
// in (paths at two spaces under "paths:", methods at four, operationId at
// six).
function adminOperations(text) {
  const ops = {};
  let inPaths = false;
  let path = null;
  let method = null;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    if (!line.startsWith(" ")) {
      inPaths = line.trimEnd() === "paths:";
      continue;
    }
    if (!inPaths) continue;
    let m = /^  (['"]?)(\/[^'"]*)\1:\s*$/.exec(line);
    if (m) {
      [path, method] = [m[2], null];
      continue;
    }
    m = /^    ([a-z]+):\s*$/.exec(line);
    if (m) {
      method = httpMethods.has(m[1]) ? m[1] : null;
      continue;
    }
    m = /^      operationId:\s*['"]?([A-Za-z0-9_]+)['"]?\s*$/.exec(line);
    if (m && path && method) ops[m[1]] = [method.toUpperCase(), path];
  }
  return ops;
}

test("every operation of admin.yaml has a client method", () => {
  const ops = adminOperations(readFileSync(adminYAML, "utf8"));
  assert.deepEqual(ops.clearFaults, ["DELETE", "/_mock/faults"]);
  const missing = Object.keys(ops).filter((op) => !(op in operations)).sort();
  assert.deepEqual(missing, [], "operations of admin.yaml the Node.js client lacks (add a MockServer method and a row to operations)");
  const stale = Object.keys(operations).filter((op) => !(op in ops)).sort();
  assert.deepEqual(stale, [], "operations names operations admin.yaml no longer has");
  for (const [op, name] of Object.entries(operations)) {
    assert.equal(typeof MockServer.prototype[name], "function", `${op}: MockServer.${name}`);
  }
  for (const [op, name] of Object.entries(accountOperations)) {
    assert.ok(op in ops, op);
    assert.equal(typeof Account.prototype[name], "function", `${op}: Account.${name}`);
  }
});

test("the reader finds a new operation", () => {
  const doc = [
    "openapi: 3.1.0", "paths:", "  /_mock/health:", "    get:", "      operationId: getHealth",
    "      responses: {}", "  '/_mock/accounts/{business_id}':", "    parameters: []",
    "    delete:", "      operationId: deleteAccount", "components:", "  schemas:",
    "    get:", "      operationId: notAnOperation",
  ].join("\n");
  assert.deepEqual(adminOperations(doc), {
    getHealth: ["GET", "/_mock/health"],
    deleteAccount: ["DELETE", "/_mock/accounts/{business_id}"],
  });
  assert.ok(!("notAnOperation" in operations), "the check would report it missing");
});

// declaredMembers returns the members a class of the declarations names:
// its methods and properties, one a line.
function declaredMembers(dts, name) {
  const start = dts.indexOf(`export class ${name} `);
  assert.ok(start >= 0, `voiceagent-mock.d.mts declares no class ${name}`);
  const body = dts.slice(dts.indexOf("{", start) + 1, dts.indexOf("\n}", start));
  const members = new Set();
  for (const line of body.split("\n")) {
    const m = /^ {2}(?:readonly )?([A-Za-z]\w*)[<(?:]/.exec(line);
    if (m && m[1] !== "constructor") members.add(m[1]);
  }
  return members;
}

test("the TypeScript declarations name every member and nothing more", () => {
  const dts = readFileSync(new URL("./voiceagent-mock.d.mts", import.meta.url), "utf8");
  for (const [name, cls, sample] of [
    ["MockServer", MockServer, new MockServer({ url: "http://127.0.0.1:1" })],
    ["Account", Account, new Account(new MockServer({ url: "http://127.0.0.1:1" }), { api_key: "k", business_id: "b" })],
  ]) {
    const declared = declaredMembers(dts, name);
    const actual = new Set([
      ...Object.getOwnPropertyNames(cls.prototype).filter((m) => m !== "constructor"),
      ...Object.keys(sample),
    ]);
    assert.deepEqual([...actual].filter((m) => !declared.has(m)).sort(), [], `${name} members the declarations lack`);
    assert.deepEqual([...declared].filter((m) => !actual.has(m)).sort(), [], `${name} members declared but absent`);
  }
});
