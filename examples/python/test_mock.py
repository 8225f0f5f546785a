"""A test suite in Python against the voiceagent mock server, over plain
HTTP with the standard library only (unittest and urllib).

It is also the black-box smoke test of the container image: health, an
account made through the admin API with the admin token, a call placed
with the account's API key, the tenant's clock advanced until the call
completes, the request journal, a fault scoped to one tenant, and the
admin API refusing a request without the token, and a world copied and
restored from a snapshot.

    VOICEAGENT_MOCK_URL=http://127.0.0.1:8080 VOICEAGENT_MOCK_ADMIN_TOKEN=t \
        python3 -m unittest discover -s examples/python -v

VOICEAGENT_MOCK_URL is the server's root (default http://127.0.0.1:8080);
VOICEAGENT_MOCK_ADMIN_TOKEN the admin token (none for a binary on
loopback started without one).
"""

import json
import os
import unittest
import urllib.error
import urllib.request

ROOT = os.environ.get("VOICEAGENT_MOCK_URL", "http://127.0.0.1:8080").rstrip("/")
BASE_URL = ROOT + "/api"
ADMIN_URL = ROOT + "/_mock"
ADMIN_TOKEN = os.environ.get("VOICEAGENT_MOCK_ADMIN_TOKEN", "")


def request(method, url, body=None, token=""):
    """Sends one request and returns (status, decoded JSON body or None)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        raw = err.read()
        return err.code, json.loads(raw) if raw else None


def admin(method, path, body=None):
    """Calls the admin API with the admin token; fails on an error status."""
    status, answer = request(method, ADMIN_URL + path, body, ADMIN_TOKEN)
    if status // 100 != 2:
        raise AssertionError(f"{method} /_mock{path}: {status} {answer}")
    return answer


class Account:
    """A tenant of its own: business, agent, number and API key."""

    def __init__(self, name):
        fields = admin("POST", "/accounts", {"business_name": name})
        self.key = fields["api_key"]
        self.business_id = fields["business_id"]
        self.agent_id = fields["agent_id"]
        self.phone_number = fields["phone_number"]

    def api(self, method, path, body=None):
        """Calls the API under /api with the account's key."""
        return request(method, BASE_URL + path, body, self.key)

    def advance(self, seconds):
        """Moves this tenant's clock only; returns its new time."""
        answer = admin("POST", "/clock/advance",
                       {"seconds": seconds, "business_id": self.business_id})
        return answer["now"]


class MockServerTest(unittest.TestCase):
    def test_health(self):
        status, answer = request("GET", ADMIN_URL + "/health", token=ADMIN_TOKEN)
        self.assertEqual(status, 200)
        self.assertEqual(answer["status"], "ok")
        self.assertTrue(answer["version"])

    # Under CI the token is part of the run: never skipped there.
    @unittest.skipUnless(ADMIN_TOKEN or os.environ.get("CI") == "true",
                         "the server has no admin token")
    def test_admin_api_refuses_a_request_without_the_token(self):
        status, answer = request("GET", ADMIN_URL + "/health")
        self.assertEqual(status, 401)
        self.assertIn("admin token", answer["error"]["message"])
        status, _ = request("GET", ADMIN_URL + "/clock", token="not-the-token")
        self.assertEqual(status, 401)

    def test_call_completes_on_the_tenant_clock(self):
        acct = Account("Python call")
        other = Account("Python other")
        status, call = acct.api("POST", "/v1/calls",
                                {"agent_id": acct.agent_id, "to": "+15551230001"})
        self.assertEqual(status, 201, call)
        self.assertEqual(call["status"], "queued")

        other_before = admin("GET", "/clock?business_id=" + other.business_id)["now"]
        acct.advance(600)
        status, got = acct.api("GET", "/v1/calls?id=" + call["id"])
        self.assertEqual(status, 200, got)
        self.assertEqual(got["status"], "completed")
        other_after = admin("GET", "/clock?business_id=" + other.business_id)["now"]
        self.assertEqual(other_before, other_after, "another tenant's clock stays")

    def test_request_journal_shows_the_tenant_requests(self):
        acct = Account("Python journal")
        status, _ = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+15551230002"})
        self.assertEqual(status, 201)
        journal = admin("GET", "/requests?method=POST&path=/v1/calls&business_id=" + acct.business_id)
        entries = journal["requests"]
        self.assertEqual(len(entries), 1, entries)
        self.assertEqual(entries[0]["status"], 201)
        self.assertEqual(entries[0]["business_id"], acct.business_id)
        self.assertNotIn(acct.key, json.dumps(entries[0]), "the key is redacted")

    def test_scoped_fault_fires_for_its_tenant_only(self):
        acct = Account("Python fault")
        other = Account("Python bystander")
        admin("POST", "/faults", {"business_id": acct.business_id, "method": "POST",
                                  "path": "/v1/calls", "status": 503, "times": 1})
        status, answer = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+15551230003"})
        self.assertEqual(status, 503, answer)
        status, _ = other.api("POST", "/v1/calls", {"agent_id": other.agent_id, "to": "+15551230003"})
        self.assertEqual(status, 201)

    def test_a_copied_world_runs_on_its_own_clock_and_a_snapshot_brings_it_back(self):
        acct = Account("Python world")
        status, call = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+15551230004"})
        self.assertEqual(status, 201, call)
        snapshot = admin("GET", "/snapshot?business_id=" + acct.business_id)
        self.assertEqual(snapshot["format"], "voiceagent-mock-snapshot")

        copy = admin("POST", "/accounts/copy", {"business_id": acct.business_id})
        copy_call = copy["ids"][call["id"]]
        self.assertNotEqual(copy_call, call["id"])
        admin("POST", "/clock/advance", {"seconds": 600, "business_id": copy["business_id"]})
        status, got = request("GET", BASE_URL + "/v1/calls?id=" + copy_call, token=copy["api_key"])
        self.assertEqual(status, 200, got)
        self.assertEqual(got["status"], "completed")
        status, mine = acct.api("GET", "/v1/calls?id=" + call["id"])
        self.assertEqual(mine["status"], "queued", "the original waits for its own clock")

        acct.advance(600)
        status, mine = acct.api("GET", "/v1/calls?id=" + call["id"])
        self.assertEqual(mine["status"], "completed")
        restored = admin("POST", "/snapshot", snapshot)
        self.assertEqual(restored["restored"], [acct.business_id])
        status, mine = acct.api("GET", "/v1/calls?id=" + call["id"])
        self.assertEqual(mine["status"], "queued", "the snapshot brought the queued call back")


if __name__ == "__main__":
    unittest.main()
