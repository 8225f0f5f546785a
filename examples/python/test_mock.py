"""A test suite in Python against the voiceagent mock server, written with
the Python client (clients/python/voiceagent_mock.py: one file, standard
library only, to copy into a suite).

It is also the black-box smoke test of the container image: health, an
account of each test's own (MockServerTestMixin), a call placed with the
account's API key, the tenant's clock advanced until the call completes,
a scripted busy line verified, the request journal, a fault scoped to one
tenant, the admin API refusing a wrong token, and a world copied and
restored from a snapshot.

    VOICEAGENT_MOCK_URL=http://127.0.0.1:8080 VOICEAGENT_MOCK_ADMIN_TOKEN=t \\
        python3 -m unittest discover -s examples/python -v

VOICEAGENT_MOCK_URL is the server's root (default http://127.0.0.1:8080);
VOICEAGENT_MOCK_ADMIN_TOKEN the admin token (none for a binary on
loopback started without one).
"""

import os
import sys
import unittest

# A suite of your own keeps a copy of voiceagent_mock.py beside its tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

import voiceagent_mock  # noqa: E402


class MockServerTest(voiceagent_mock.MockServerTestMixin, unittest.TestCase):
    verify_scripts = True  # a scripted step nothing used fails the test

    def test_health(self):
        health = self.mock.health()
        self.assertEqual(health["status"], "ok")
        self.assertTrue(health["version"])

    # Under CI the token is part of the run: never skipped there.
    @unittest.skipUnless(os.environ.get("VOICEAGENT_MOCK_ADMIN_TOKEN") or os.environ.get("CI") == "true",
                         "the server has no admin token")
    def test_admin_api_refuses_a_wrong_token(self):
        with self.assertRaises(voiceagent_mock.MockError) as cm:
            voiceagent_mock.MockServer(admin_token="not-the-token").health()
        self.assertEqual(cm.exception.status, 401)
        self.assertIn("admin token", cm.exception.message)

    def test_call_completes_on_the_tenant_clock(self):
        other = self.new_account()
        resp = self.account.api("POST", "/v1/calls", {"agent_id": self.account.agent_id, "to": "+15551230001"})
        self.assertEqual(resp.status, 201, resp)
        self.assertEqual(resp.body["status"], "queued")

        other_before = other.now()
        self.account.advance(600)
        got = self.account.api("GET", "/v1/calls?id=" + resp.body["id"])
        self.assertEqual(got.body["status"], "completed")
        self.assertEqual(other.now(), other_before, "another tenant's clock stays")

    def test_a_scripted_busy_line(self):
        self.account.script(calls=[{"to": "+15551230005", "outcome": "busy"}])
        resp = self.account.api("POST", "/v1/calls", {"agent_id": self.account.agent_id, "to": "+15551230005"})
        self.account.advance(60)
        got = self.account.api("GET", "/v1/calls?id=" + resp.body["id"])
        self.assertEqual((got.body["status"], got.body["error"]), ("failed", "busy"))

    def test_request_journal_shows_the_tenant_requests(self):
        self.account.api("POST", "/v1/calls", {"agent_id": self.account.agent_id, "to": "+15551230002"})
        entries = self.account.requests(method="POST", path="/v1/calls")["requests"]
        self.assertEqual([e["status"] for e in entries], [201])
        self.assertNotIn(self.account.api_key, str(entries[0]), "the key is redacted")

    def test_scoped_fault_fires_for_its_tenant_only(self):
        other = self.new_account()
        self.account.add_fault(method="POST", path="/v1/calls", status=503, times=1)
        resp = self.account.api("POST", "/v1/calls", {"agent_id": self.account.agent_id, "to": "+15551230003"})
        self.assertEqual(resp.status, 503, resp)
        resp = other.api("POST", "/v1/calls", {"agent_id": other.agent_id, "to": "+15551230003"})
        self.assertEqual(resp.status, 201)

    def test_a_copied_world_runs_on_its_own_clock_and_a_snapshot_brings_it_back(self):
        acct = self.account
        call = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+15551230004"}).body
        snapshot = acct.snapshot()

        copy = acct.copy()
        copy.advance(600)
        self.assertEqual(copy.api("GET", "/v1/calls?id=" + copy.ids[call["id"]]).body["status"], "completed")
        self.assertEqual(acct.api("GET", "/v1/calls?id=" + call["id"]).body["status"], "queued",
                         "the original waits for its own clock")

        acct.advance(600)
        self.assertEqual(acct.restore(snapshot)["restored"], [acct.business_id])
        self.assertEqual(acct.api("GET", "/v1/calls?id=" + call["id"]).body["status"], "queued",
                         "the snapshot brought the queued call back")


if __name__ == "__main__":
    unittest.main()
