"""Checks the docker compose recipe from the host: a webhook the mock
server posts crosses to the receiver's container (standard library only).

    VOICEAGENT_MOCK_ADMIN_TOKEN=compose-admin-token \
        python3 -m unittest discover -s examples/compose -v

VOICEAGENT_MOCK_URL (default http://127.0.0.1:8080) and RECEIVER_URL
(default http://127.0.0.1:8090) are where the host reaches the two
containers; RECEIVER_HOOK (default http://receiver:8090/hooks) is where the
mock reaches the receiver.
"""

import json
import os
import time
import unittest
import urllib.request

ROOT = os.environ.get("VOICEAGENT_MOCK_URL", "http://127.0.0.1:8080").rstrip("/")
TOKEN = os.environ.get("VOICEAGENT_MOCK_ADMIN_TOKEN", "compose-admin-token")
RECEIVER = os.environ.get("RECEIVER_URL", "http://127.0.0.1:8090").rstrip("/")
HOOK = os.environ.get("RECEIVER_HOOK", "http://receiver:8090/hooks")


def call(method, url, body=None, token=""):
    """Sends one request and returns its decoded JSON answer."""
    req = urllib.request.Request(url, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


class ComposeTest(unittest.TestCase):
    def test_a_delivery_reaches_the_receiver_container(self):
        acct = call("POST", ROOT + "/_mock/accounts", {"business_name": "Compose"}, TOKEN)
        key = acct["api_key"]
        call("POST", ROOT + "/api/v1/webhooks", {
            "business_id": acct["business_id"], "webhook_url": HOOK, "events": ["call.completed"],
        }, key)
        created = call("POST", ROOT + "/api/v1/calls", {"agent_id": acct["agent_id"], "to": "+15551230001"}, key)
        call("POST", ROOT + "/_mock/clock/advance", {"seconds": 600, "business_id": acct["business_id"]}, TOKEN)

        deadline = time.monotonic() + 30
        while True:
            got = call("GET", RECEIVER + "/received")["deliveries"]
            ids = [d["body"].get("data", {}).get("id") for d in got]
            if created["id"] in ids:
                break
            if time.monotonic() > deadline:
                deliveries = call("GET", ROOT + "/_mock/deliveries?business_id=" + acct["business_id"], None, TOKEN)
                self.fail(f"the receiver got {got}; the mock's delivery log: {deliveries}")
            time.sleep(0.2)


if __name__ == "__main__":
    unittest.main()
