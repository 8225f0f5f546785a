"""Tests of voiceagent_mock against a running mock server.

    cd clients/python
    VOICEAGENT_MOCK_URL=http://127.0.0.1:8080 VOICEAGENT_MOCK_ADMIN_TOKEN=t python3 -m unittest -v

Every test makes accounts of its own, except ResetTest, which resets the
server: run the suite against a server no other suite is using.
"""

import http.server
import json
import os
import re
import sys
import threading
import time
import types
import unittest

import voiceagent_mock
from voiceagent_mock import Account, MockError, MockServer, ScriptNotUsedError

ADMIN_YAML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "openapi", "admin.yaml")

# Every operation of openapi/admin.yaml and the MockServer method that
# covers it. A new operation in admin.yaml fails TestCoverage until it is
# added here and to the client.
OPERATIONS = {
    "getIndex": "index",
    "getAPIIndex": "api_index",
    "getAdminIndex": "admin_index",
    "getHealth": "health",
    "getAdminOpenAPIDocument": "admin_openapi",
    "reset": "reset",
    "createAccount": "new_account",
    "copyAccount": "copy_account",
    "deleteAccount": "delete_account",
    "clearRateLimits": "clear_rate_limits",
    "getSnapshot": "snapshot",
    "restoreSnapshot": "restore",
    "listOutbox": "outbox",
    "listTenants": "tenants",
    "getClock": "clock",
    "getSchedule": "schedule",
    "advanceClock": "advance",
    "listRequests": "requests",
    "listFaults": "faults",
    "addFault": "add_fault",
    "clearFaults": "clear_faults",
    "listDeliveries": "deliveries",
    "replayDelivery": "replay_delivery",
    "emitEvent": "emit_event",
    "runReceiverChecks": "receiver_check",
    "inboundCall": "inbound_call",
    "inboundSms": "inbound_sms",
    "setDnc": "set_dnc",
    "setConsent": "set_consent",
    "getConsent": "consent",
    "listAllCalls": "calls",
    "getProviderCall": "provider_call",
    "getPromptAudit": "prompt_audit",
    "addScript": "add_script",
    "listScript": "script_steps",
    "clearScript": "clear_script",
    "loadFixtures": "load_fixtures",
    "seedLeads": "seed_leads",
    "seedCalls": "seed_calls",
    "runSdrSchedulerNow": "run_sdr_cron",
    "getDashboard": "dashboard",
    "getDashboardStyle": "dashboard_style",
    "getDashboardScript": "dashboard_script",
}

# The operations about one tenant and their Account form.
ACCOUNT_OPERATIONS = {
    "copyAccount": "copy",
    "deleteAccount": "delete",
    "getSnapshot": "snapshot",
    "restoreSnapshot": "restore",
    "listOutbox": "outbox",
    "getClock": "clock",
    "getSchedule": "schedule",
    "advanceClock": "advance",
    "listRequests": "requests",
    "addFault": "add_fault",
    "listDeliveries": "deliveries",
    "emitEvent": "emit_event",
    "inboundCall": "inbound_call",
    "inboundSms": "inbound_sms",
    "setDnc": "add_dnc",
    "setConsent": "set_consent",
    "getConsent": "consent",
    "listAllCalls": "calls",
    "addScript": "script",
    "listScript": "script_steps",
    "clearScript": "clear_script",
}

_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def admin_operations(text):
    """Returns {operationId: (METHOD, path)} of an OpenAPI document's paths.

    A minimal reader of the document's layout (two-space indents, as
    admin.yaml is written): paths at two spaces under "paths:", methods at
    four, operationId at six.
    """
    ops = {}
    in_paths = False
    path = method = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            in_paths = line.rstrip() == "paths:"
            continue
        if not in_paths:
            continue
        m = re.match(r"^  (['\"]?)(/[^'\"]*)\1:\s*$", line)
        if m:
            path, method = m.group(2), None
            continue
        m = re.match(r"^    ([a-z]+):\s*$", line)
        if m:
            method = m.group(1) if m.group(1) in _METHODS else None
            continue
        m = re.match(r"^      operationId:\s*['\"]?([A-Za-z0-9_]+)['\"]?\s*$", line)
        if m and path and method:
            ops[m.group(1)] = (method.upper(), path)
    return ops


class CoverageTest(unittest.TestCase):
    """The client covers every operation of admin.yaml (no server needed)."""

    def test_every_admin_operation_has_a_method(self):
        with open(ADMIN_YAML, encoding="utf-8") as f:
            ops = admin_operations(f.read())
        self.assertIn("createAccount", ops)
        self.assertEqual(ops["clearFaults"], ("DELETE", "/_mock/faults"))
        missing = sorted(set(ops) - set(OPERATIONS))
        self.assertEqual(missing, [], "operations of admin.yaml the Python client lacks "
                         "(add a method to voiceagent_mock.MockServer and a row to OPERATIONS)")
        stale = sorted(set(OPERATIONS) - set(ops))
        self.assertEqual(stale, [], "OPERATIONS names operations admin.yaml no longer has")
        for op, name in OPERATIONS.items():
            self.assertTrue(callable(getattr(MockServer, name, None)), f"{op}: MockServer.{name}")
        for op, name in ACCOUNT_OPERATIONS.items():
            self.assertIn(op, ops)
            self.assertTrue(callable(getattr(Account, name, None)), f"{op}: Account.{name}")

    def test_the_reader_finds_a_new_operation(self):
        doc = "\n".join([
            "openapi: 3.1.0", "paths:", "  /_mock/health:", "    get:", "      operationId: getHealth",
            "      responses: {}", "  '/_mock/accounts/{business_id}':", "    parameters: []",
            "    delete:", "      operationId: deleteAccount", "components:", "  schemas:",
            "    get:", "      operationId: notAnOperation"])
        self.assertEqual(admin_operations(doc), {
            "getHealth": ("GET", "/_mock/health"),
            "deleteAccount": ("DELETE", "/_mock/accounts/{business_id}"),
        })
        self.assertNotIn("notAnOperation", OPERATIONS, "the check would report it missing")


class Receiver:
    """A webhook receiver on loopback recording each request; answers 204.

    Its url is as the server reaches it (MockServer.receiver_url): a server
    in a container reaches the host's loopback under another name.
    """

    def __init__(self, server):
        self.requests = []
        self.cond = threading.Condition()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with outer.cond:
                    outer.requests.append((self.path, self.headers, body))
                    outer.cond.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = server.receiver_url(self.httpd.server_address[1], "/hooks")
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait(self, n, timeout=10.0):
        with self.cond:
            self.cond.wait_for(lambda: len(self.requests) >= n, timeout)
            return list(self.requests)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class ServerTest(voiceagent_mock.MockServerTestMixin, unittest.TestCase):
    """The client against a running server; self.account is this test's own."""

    def test_health_index_and_documents(self):
        self.assertEqual(self.mock.health()["status"], "ok")
        for index in (self.mock.index(), self.mock.api_index(), self.mock.admin_index()):
            self.assertEqual(index["api"], self.mock.base_url)
            self.assertEqual(index["admin_api"], self.mock.admin_url)
        self.assertIn("operationId: createAccount", self.mock.admin_openapi())
        self.assertIn("<html", self.mock.dashboard())
        self.assertIn("{", self.mock.dashboard_style())
        self.assertIn("/_mock", self.mock.dashboard_script())

    @unittest.skipUnless(os.environ.get("VOICEAGENT_MOCK_ADMIN_TOKEN") or os.environ.get("CI") == "true",
                         "the server has no admin token")
    def test_wrong_admin_token_is_refused(self):
        with self.assertRaises(MockError) as cm:
            MockServer(self.mock.url, "not-the-token").tenants()
        self.assertEqual(cm.exception.status, 401)

    def test_refusal_carries_the_error_code_and_details(self):
        with self.assertRaises(MockError) as cm:
            self.account.script(calls=[{"to": "+14155550100", "outcome": "no-answer"}])
        err = cm.exception
        self.assertEqual((err.status, err.code), (400, "invalid_request"))
        self.assertTrue(any(d["path"].startswith("/calls/0") for d in err.details), err.details)
        self.assertEqual(self.account.script_steps(), [], "nothing was added")

    def test_call_completes_on_the_tenant_clock_alone(self):
        acct, other = self.account, self.new_account()
        resp = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+14155550101"})
        self.assertEqual(resp.status, 201, resp)
        call_id = resp.body["id"]
        self.assertTrue(any(t["subject_id"] == call_id for t in acct.schedule()["tasks"]))
        self.assertEqual(self.mock.provider_call(call_id)["to"], "+14155550101")
        self.assertEqual([c["id"] for c in acct.calls(status="active")["calls"]], [call_id])

        other_before = other.now()
        clock = acct.advance(600)
        self.assertEqual(clock["now"], acct.now())
        self.assertEqual(acct.api("GET", "/v1/calls?id=" + call_id).body["status"], "completed")
        self.assertEqual(other.now(), other_before, "another tenant's clock stays")
        self.assertEqual(acct.schedule()["tasks"], [])
        tenants = {t["business_id"]: t for t in self.mock.tenants()}
        self.assertEqual(tenants[acct.business_id]["now"], acct.now())

    def test_script_steps_are_used_and_verified(self):
        acct, to = self.account, "+14155550102"
        steps = acct.script(calls=[{"to": to, "outcome": "completed", "duration": 42,
                                    "transcript": [{"role": "agent", "text": "Hi, this is Ava."},
                                                   {"role": "caller", "text": "Tuesday works."}],
                                    "summary": "Booked Tuesday."}])
        self.assertEqual([s["status"] for s in steps], ["pending"])
        with self.assertRaises(ScriptNotUsedError) as cm:
            acct.verify_script()
        self.assertIn(f"a call to {to}, completed", str(cm.exception))

        call = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": to}).body
        acct.advance(600)
        got = acct.api("GET", "/v1/calls?id=" + call["id"]).body
        self.assertEqual((got["status"], got["summary"], got["duration"]), ("completed", "Booked Tuesday.", 42))
        used = acct.script_steps()
        self.assertEqual((used[0]["status"], used[0]["used_by"]), ("used", call["id"]))
        acct.verify_script()

        acct.script(texts=[{"to": to, "outcome": "failed"}])
        with self.assertRaises(ScriptNotUsedError) as cm:
            acct.verify_script()
        self.assertEqual(len(cm.exception.steps), 1)
        self.assertIn(f"a text to {to}, failed", str(cm.exception))
        self.assertEqual(acct.clear_script(), 1)
        acct.verify_script()

    def test_text_reply_opts_out_and_reaches_the_outbox(self):
        acct, to = self.account, "+14155550103"
        acct.set_consent(to, "opted_in")
        acct.script(texts=[{"to": to, "outcome": "delivered", "reply": {"after_seconds": 60, "body": "STOP"}}])
        resp = acct.api("POST", "/v1/sms/send", {"to": to, "from_agent_id": acct.agent_id, "message": "Your visit is booked."})
        self.assertEqual(resp.status // 100, 2, resp)
        sent = acct.wait_outbox(to=to, timeout=5)
        self.assertEqual(sent[0]["body"], "Your visit is booked.")
        self.assertEqual(acct.consent(to)["status"], "opted_in")
        acct.advance(120)
        self.assertEqual(acct.consent(to)["status"], "opted_out", "the scripted STOP arrived")
        acct.verify_script()

    def test_scoped_fault_is_journaled_and_removed(self):
        acct, other = self.account, self.new_account()
        rule = acct.add_fault(method="POST", path="/v1/calls", status=503, times=1)
        self.assertEqual(rule["business_id"], acct.business_id)
        body = {"agent_id": acct.agent_id, "to": "+14155550104"}
        self.assertEqual(acct.api("POST", "/v1/calls", body).status, 503)
        self.assertEqual(other.api("POST", "/v1/calls", {"agent_id": other.agent_id, "to": "+14155550104"}).status, 201)
        entry = acct.requests(path="/v1/calls", status=503)["requests"][0]
        self.assertEqual(entry["fault_id"], rule["id"])
        fired = {f["id"]: f["fired"] for f in self.mock.faults()}
        self.assertEqual(fired[rule["id"]], 1)
        self.assertEqual(self.mock.remove_fault(rule["id"]), {"removed": rule["id"]})
        with self.assertRaises(MockError) as cm:
            self.mock.remove_fault(rule["id"])
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "not_found"))

    def test_journal_wait_returns_a_request_made_meanwhile(self):
        acct = self.account
        seq = acct.requests(limit=0)["latest_seq"]
        timer = threading.Timer(0.3, lambda: acct.api("GET", "/v1/agents"))
        timer.start()
        try:
            entries = acct.wait_requests(after=seq, path="/v1/agents", timeout=10)
        finally:
            timer.join()
        self.assertEqual(entries[0]["status"], 200)
        self.assertEqual(entries[0]["business_id"], acct.business_id)
        self.assertNotIn(acct.api_key, json.dumps(entries[0]), "the key is redacted")
        with self.assertRaises(TimeoutError):
            acct.wait_requests(after=entries[-1]["seq"], path="/v1/agents", timeout=0.2)

    def test_delivery_reaches_a_loopback_receiver_and_is_replayed(self):
        acct, receiver = self.account, Receiver(self.mock)
        self.addCleanup(receiver.close)
        sub = acct.api("POST", "/v1/webhooks", {"business_id": acct.business_id, "webhook_url": receiver.url,
                                                "events": ["call.completed"]})
        self.assertEqual(sub.status, 201, sub)
        event = acct.emit_event("call.completed")
        self.assertEqual(event["data"]["status"], "completed", "without data, the type's sample data")
        delivered = acct.wait_deliveries(event_id=event["id"], status="succeeded", timeout=10)
        d = delivered[0]
        self.assertEqual(d["subscription_id"], sub.body["id"])
        got = receiver.wait(1)
        self.assertEqual(got[0][1]["webhook-id"], d["message_id"])
        self.assertEqual(json.loads(got[0][2])["event"], "call.completed")

        replay = self.mock.replay_delivery(d["id"])
        self.assertEqual(replay["replay_of"], d["id"])
        got = receiver.wait(2)
        self.assertEqual(len(got), 2)
        self.assertEqual(got[1][1]["webhook-id"], d["message_id"], "a replay keeps the webhook-id")
        with self.assertRaises(TimeoutError):
            acct.wait_deliveries(count=3, event_id=event["id"], timeout=0.2)

    def test_receiver_check_of_a_receiver_that_verifies_nothing(self):
        acct, receiver = self.account, Receiver(self.mock)
        self.addCleanup(receiver.close)
        sub = acct.api("POST", "/v1/webhooks", {"business_id": acct.business_id, "webhook_url": receiver.url})
        self.assertEqual(sub.status, 201, sub)
        report = self.mock.receiver_check(subscription_id=sub.body["id"], events=["lead.created"])
        self.assertFalse(report["passed"])
        self.assertEqual(report["url"], receiver.url)
        for check in report["checks"]:
            self.assertEqual(check["passed"], not check["id"].startswith("rejects_"), check)
        report = self.mock.receiver_check(url=receiver.url, secret=sub.body["secret"], events=["sms.sent"])
        self.assertEqual(report["checks"][0]["event"], "sms.sent")
        with self.assertRaises(MockError) as err:
            self.mock.receiver_check(secret=sub.body["secret"])
        self.assertEqual(err.exception.status, 400)
        with self.assertRaises(MockError) as err:
            self.mock.receiver_check(url=receiver.url, secret="nope")
        self.assertEqual(err.exception.status, 400)
        with self.assertRaises(MockError) as err:
            self.mock.receiver_check(subscription_id="00000000-0000-4000-8000-000000000000")
        self.assertEqual(err.exception.status, 404)

    def test_inbound_call_and_text_consent_and_dnc(self):
        acct, caller = self.account, "+14155550105"
        call = acct.inbound_call(caller, caller={"name": "Ann Lee", "said": "I need a quote"})
        self.assertEqual((call["direction"], call["to"]), ("inbound", acct.phone_number))
        acct.advance(600)
        leads = acct.api("GET", "/v1/leads").body["leads"]
        self.assertIn(caller, [lead["phone"] for lead in leads])
        self.assertEqual(acct.consent(caller)["status"], "opted_in", "a call grants consent")
        self.assertEqual(acct.inbound_sms(caller, "STOP")["consent"], "opted_out")
        self.assertEqual(acct.consent(caller)["status"], "opted_out")

        acct.add_dnc(caller)
        self.assertTrue(acct.consent(caller)["on_dnc"])
        text = {"to": caller, "from_agent_id": acct.agent_id, "message": "Your quote is ready."}
        refused = acct.api("POST", "/v1/sms/send", text)
        self.assertEqual((refused.status, refused.body["error"]["code"]), (400, "number_on_dnc"), refused)
        acct.remove_dnc(caller)
        self.assertFalse(acct.consent(caller)["on_dnc"])
        refused = acct.api("POST", "/v1/sms/send", text)
        self.assertEqual(refused.body["error"]["code"], "number_opted_out", "off the list, still opted out")

    def test_prompt_audit(self):
        acct = self.account
        resp = acct.api("POST", "/v1/sms/update-prompt", {"agent_id": acct.agent_id, "sms_prompt": "Be brief.",
                                                          "reason": "shorter texts"})
        self.assertEqual(resp.status, 200, resp)
        entries = self.mock.prompt_audit(acct.agent_id)
        self.assertEqual((entries[-1]["new_value"], entries[-1]["reason"]), ("Be brief.", "shorter texts"))

    def test_fixtures_load_leads_and_calls(self):
        accounts = self.mock.load_fixtures([{
            "business_name": "Fixture Plumbing",
            "leads": [{"name": "Maria Lopez", "phone": "+14155550106"}],
            "calls": [{"to": "+14155550106", "duration": 90}],
        }])
        self.assertEqual(len(accounts), 1)
        acct = accounts[0]
        self.assertEqual([lead["name"] for lead in acct.api("GET", "/v1/leads").body["leads"]], ["Maria Lopez"])
        calls = acct.calls()["calls"]
        self.assertEqual([(c["to"], c["status"]) for c in calls], [("+14155550106", "completed")])

    def test_seed_leads_and_calls_into_an_account(self):
        acct = self.account
        lead_ids = self.mock.seed_leads(acct.business_id, [{"name": "Ana Ruiz", "phone": "+14155550108"}])
        call_ids = self.mock.seed_calls(acct.business_id, [{"to": "+14155550108", "duration": 60}])
        self.assertEqual(len(lead_ids), 1)
        self.assertEqual([c["id"] for c in acct.calls()["calls"]], call_ids)
        with self.assertRaises(MockError) as e:
            self.mock.seed_leads(acct.business_id, [{"status": "nothing"}])
        self.assertEqual(e.exception.status, 400)

    def test_copy_runs_on_its_own_clock_and_a_snapshot_brings_it_back(self):
        acct = self.account
        call = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+14155550107"}).body
        snapshot = acct.snapshot()
        self.assertEqual(snapshot["format"], "voiceagent-mock-snapshot")

        copy = acct.copy()
        self.addCleanup(copy.delete_quietly)
        self.assertNotEqual(copy.business_id, acct.business_id)
        copy_call = copy.ids[call["id"]]
        copy.advance(600)
        self.assertEqual(copy.api("GET", "/v1/calls?id=" + copy_call).body["status"], "completed")
        self.assertEqual(acct.api("GET", "/v1/calls?id=" + call["id"]).body["status"], "queued")

        acct.advance(600)
        self.assertEqual(acct.api("GET", "/v1/calls?id=" + call["id"]).body["status"], "completed")
        self.assertEqual(acct.restore(snapshot), {"restored": [acct.business_id], "server": False})
        self.assertEqual(acct.api("GET", "/v1/calls?id=" + call["id"]).body["status"], "queued")

    def test_deleted_account_is_gone(self):
        acct = self.new_account()
        self.assertEqual(acct.api("GET", "/v1/numbers").status, 200)
        self.assertEqual(acct.delete(), {"deleted": acct.business_id})
        self.assertEqual(acct.api("GET", "/v1/numbers").status, 401)
        self.assertNotIn(acct.business_id, [t["business_id"] for t in self.mock.tenants()])
        with self.assertRaises(MockError) as got:
            acct.snapshot()
        self.assertEqual(got.exception.status, 404)
        with self.assertRaises(MockError) as got:
            acct.delete()
        self.assertEqual((got.exception.status, got.exception.code), (404, "not_found"))
        acct.delete_quietly()  # a cleanup after the test deleted it: no error

    def test_clear_rate_limits(self):
        got = self.mock.clear_rate_limits(business_id=self.account.business_id)
        self.assertEqual(got["business_id"], self.account.business_id)
        self.assertGreaterEqual(got["cleared"], 0)
        got = self.mock.clear_rate_limits(client_ip="203.0.113.9")
        self.assertEqual(got, {"cleared": 0, "client_ip": "203.0.113.9"})
        with self.assertRaises(MockError) as got:
            self.mock.clear_rate_limits(client_ip="not-an-ip")
        self.assertEqual(got.exception.status, 400)

    def test_sdr_cron_runs_enabled_businesses_only(self):
        runs = self.mock.run_sdr_cron()["runs"]
        self.assertIsInstance(runs, list)
        self.assertNotIn(self.account.business_id, json.dumps(runs), "SDR is off for a new account")


class VerifyScriptsTest(unittest.TestCase):
    """MockServerTestMixin.verify_scripts makes a test that leaves a step unused fail."""

    def test_unused_step_fails_the_test(self):
        class LeavesAStep(voiceagent_mock.MockServerTestMixin, unittest.TestCase):
            verify_scripts = True

            def test_leaves_a_step(self):
                self.account.script(calls=[{"to": "+14155550109", "outcome": "busy"}])

            def test_uses_its_step(self):
                self.account.script(calls=[{"to": "+14155550109", "outcome": "busy"}])
                resp = self.account.api("POST", "/v1/calls", {"agent_id": self.account.agent_id, "to": "+14155550109"})
                assert resp.status == 201, resp

        result = unittest.TestResult()
        unittest.defaultTestLoader.loadTestsFromTestCase(LeavesAStep).run(result)
        self.assertEqual(result.testsRun, 2)
        self.assertEqual(result.errors, [])
        self.assertEqual([f[0].id().rsplit(".", 1)[-1] for f in result.failures], ["test_leaves_a_step"])
        self.assertIn("was not used: a call to +14155550109, busy", result.failures[0][1])


class PytestFixturesTest(unittest.TestCase):
    """pytest_fixtures wires the fixture bodies into pytest (a stand-in pytest module here)."""

    def test_fixtures(self):
        registered = {}

        def fixture(scope="function", name=None):
            def wrap(fn):
                registered[name] = (scope, fn)
                return fn
            return wrap

        sys.modules["pytest"] = types.SimpleNamespace(fixture=fixture)
        try:
            voiceagent_mock.pytest_fixtures(verify_scripts=True)
        finally:
            del sys.modules["pytest"]
        self.assertEqual({k: v[0] for k, v in registered.items()}, {"mock_server": "session", "mock_account": "function"})

        server_gen = registered["mock_server"][1]()
        server = next(server_gen)
        self.assertIsInstance(server, MockServer)
        request = types.SimpleNamespace(node=types.SimpleNamespace(name="test_fixture"))
        account_gen = registered["mock_account"][1](server, request)
        acct = next(account_gen)
        self.assertEqual({t["business_id"]: t["business_name"] for t in server.tenants()}[acct.business_id], "test_fixture")
        acct.script(texts=[{"to": "+14155550110", "outcome": "failed"}])
        with self.assertRaises(ScriptNotUsedError):
            next(account_gen)


class ResetTest(unittest.TestCase):
    """Resets the server: every account made before is gone."""

    def test_reset(self):
        mock = voiceagent_mock.shared_server()
        acct = mock.new_account(business_name="Before the reset")
        self.assertEqual(mock.reset(seed="none")["seed_accounts"], 0)
        self.assertEqual(mock.tenants(), [])
        self.assertEqual(acct.api("GET", "/v1/agents").status, 401)
        got = mock.reset()
        self.assertTrue(got["reset"])
        self.assertEqual(len(mock.tenants()), got["seed_accounts"], "the seed accounts came back")


if __name__ == "__main__":
    unittest.main()
