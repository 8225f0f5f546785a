"""A client of the voiceagent mock server's admin API, for Python test suites.

One file with no dependency beyond the standard library (Python 3.9+): copy
it into a suite, or put clients/python on the path. It covers every
operation of the admin API (openapi/admin.yaml): accounts (deleted when a
test ends), copies,
snapshots and restore, scripts (with verify_script), the clocks, faults,
the request journal, webhook deliveries and the outbox with bounded waits,
inbound calls and texts, do-not-call and consent, fixtures, the schedule,
rate-limit counters, tenants, reset and health.

    import voiceagent_mock

    mock = voiceagent_mock.MockServer()   # VOICEAGENT_MOCK_URL, VOICEAGENT_MOCK_ADMIN_TOKEN
    acct = mock.new_account(business_name="Test")
    acct.script(calls=[{"to": "+14155550100", "outcome": "busy"}])
    resp = acct.api("POST", "/v1/calls", {"agent_id": acct.agent_id, "to": "+14155550100"})
    acct.advance(60)
    acct.verify_script()                  # AssertionError naming each unused step

A MockServer is the server (its root URL and admin token); an Account is a
tenant made on it (api_key, business_id, agent_id, phone_number, ...) with
the helpers about that tenant: its clock, script, requests, deliveries,
outbox, faults, copy and snapshot. A refused admin request raises
MockError with the response's status, error code, message and details.
Account.api and MockServer.api send requests to the API under /api and
return the response whatever its status, for the test to assert on.

For unittest, mix MockServerTestMixin into a TestCase; for pytest, call
pytest_fixtures() in a conftest.py (pytest is imported only then).
"""

import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "MockServer",
    "Account",
    "MockError",
    "ScriptNotUsedError",
    "Response",
    "MockServerTestMixin",
    "pytest_fixtures",
    "mock_server_fixture",
    "mock_account_fixture",
]

DEFAULT_URL = "http://127.0.0.1:8080"

# The server waits at most this long in one long-poll (?wait=).
MAX_SERVER_WAIT = 60.0


class MockError(Exception):
    """An error response of the mock server: status and the spec's error fields.

    code, message and details are those of the body's {"error": {...}}
    (details is a list of {"path", "message"}); error is the whole error
    object, with any other member the route adds.
    """

    def __init__(self, method, path, status, body, request_id=""):
        self.method = method
        self.path = path
        self.status = status
        self.body = body
        self.request_id = request_id
        err = body.get("error") if isinstance(body, dict) else None
        self.error = err if isinstance(err, dict) else {}
        self.code = self.error.get("code", "")
        self.message = self.error.get("message", "" if body is None else str(body))
        self.details = self.error.get("details") or []
        text = f"{method} {path}: {status}"
        if self.code:
            text += f" {self.code}"
        if self.message:
            text += f": {self.message}"
        for d in self.details:
            detail = f"{d.get('path')}: {d.get('message')}"
            if detail not in self.message:
                text += f" ({detail})"
        super().__init__(text)


class ScriptNotUsedError(AssertionError):
    """Raised by verify_script when steps of a script were not used; steps holds them."""

    def __init__(self, steps):
        self.steps = steps
        super().__init__("\n".join(
            f"script step {s['id']} was not used: a {s['kind']} to {s['to']}, {s['outcome']}"
            for s in steps))


class Response:
    """A response of the API: status, headers and the decoded body.

    body is the decoded JSON value, the text when the response is not JSON,
    or None when it is empty. request_id is its X-Request-Id.
    """

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def request_id(self):
        return self.headers.get("X-Request-Id", "")

    def json(self):
        """Returns the decoded body."""
        return self.body

    def __repr__(self):
        return f"Response(status={self.status}, body={self.body!r})"


def _duration(seconds):
    """Formats seconds as a Go duration for ?wait= (milliseconds, at least 1ms)."""
    return f"{max(1, int(round(seconds * 1000)))}ms"


def _wait_param(query, wait):
    """Adds ?wait= to query for a long-poll of wait seconds (at most 60); returns the wait."""
    if wait is None:
        return 0.0
    wait = min(wait, MAX_SERVER_WAIT)
    query["wait"] = _duration(wait)
    return wait


def _until(timeout, fetch, done, failure):
    """Calls fetch(seconds left) until done(result) or timeout seconds passed.

    Returns the result; raises TimeoutError with failure(result) when the
    time is up first.
    """
    deadline = time.monotonic() + timeout
    while True:
        got = fetch(max(0.001, deadline - time.monotonic()))
        if done(got):
            return got
        if time.monotonic() >= deadline:
            raise TimeoutError(failure(got))


def _query(params):
    """Encodes the parameters that are not None; booleans as true/false."""
    pairs = []
    for k, v in params.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        pairs.append((k, str(v)))
    return ("?" + urllib.parse.urlencode(pairs)) if pairs else ""


def _compact(d):
    """Returns d without its None values."""
    return {k: v for k, v in d.items() if v is not None}


def _decode(raw, content_type):
    if not raw:
        return None
    text = raw.decode("utf-8", "replace")
    if "json" in (content_type or ""):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


class MockServer:
    """The mock server: its root URL and admin token.

    url defaults to VOICEAGENT_MOCK_URL (else http://127.0.0.1:8080) and
    admin_token to VOICEAGENT_MOCK_ADMIN_TOKEN (none for a binary on
    loopback started without one). timeout bounds each request, in seconds,
    besides any wait it asks the server for. receiver_host is the host
    name the server reaches this machine's loopback at (receiver_url).
    """

    def __init__(self, url=None, admin_token=None, timeout=30.0, receiver_host=None):
        if url is None:
            url = os.environ.get("VOICEAGENT_MOCK_URL", DEFAULT_URL)
        if admin_token is None:
            admin_token = os.environ.get("VOICEAGENT_MOCK_ADMIN_TOKEN", "")
        if receiver_host is None:
            receiver_host = os.environ.get("VOICEAGENT_MOCK_RECEIVER_HOST", "127.0.0.1")
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.timeout = timeout
        self.receiver_host = receiver_host

    def receiver_url(self, port, path="/"):
        """The URL at which the server reaches a receiver listening on this machine's loopback.

        The host is receiver_host: VOICEAGENT_MOCK_RECEIVER_HOST, else
        127.0.0.1; a server in a podman container started with
        --network slirp4netns:allow_host_loopback=true reaches the host's
        loopback at 10.0.2.2 (see docs/mockserver.md, Container image).
        """
        return f"http://{self.receiver_host}:{port}{path}"

    @property
    def base_url(self):
        """The API's base URL (ending with /api), for an SDK or HTTP client."""
        return self.url + "/api"

    @property
    def admin_url(self):
        """The admin API's root (/_mock)."""
        return self.url + "/_mock"

    def __repr__(self):
        return f"MockServer({self.url!r})"

    # Transport.

    def _send(self, method, url, body=None, token="", headers=None, timeout=None):
        data = None
        req_headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode()
            req_headers["Content-Type"] = "application/json"
        if token:
            req_headers["Authorization"] = "Bearer " + token
        req_headers.update(headers or {})
        req = urllib.request.Request(url, data=data, method=method, headers=req_headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                raw = resp.read()
                return Response(resp.status, resp.headers, _decode(raw, resp.headers.get("Content-Type")))
        except urllib.error.HTTPError as err:
            raw = err.read()
            return Response(err.code, err.headers, _decode(raw, err.headers.get("Content-Type")))

    def admin(self, method, path, body=None, query=None, wait=0.0):
        """Sends one admin request (path under /_mock) and returns the decoded body.

        query is a dict of parameters (None values left out); wait is how
        long the server may hold the request, added to the timeout. Raises
        MockError for an error status.
        """
        return self._checked(method, "/_mock" + path + _query(query or {}), body, wait)

    def _checked(self, method, target, body=None, wait=0.0):
        resp = self._send(method, self.url + target, body, self.admin_token, timeout=self.timeout + wait)
        if resp.status // 100 != 2:
            raise MockError(method, target, resp.status, resp.body, resp.request_id)
        return resp.body

    def api(self, method, path, body=None, api_key="", headers=None):
        """Sends a request to the API (path under /api, such as /v1/calls).

        Returns the Response whatever its status: the API's errors are what
        a test asserts on. api_key is sent as the bearer token.
        """
        return self._send(method, self.base_url + path, body, api_key, headers)

    # Index, health and documents.

    def index(self):
        """GET /: the server's index (API base URL, OpenAPI documents, dashboard, health)."""
        return self._checked("GET", "/")

    def api_index(self):
        """GET /api: the server's index at the API's base."""
        return self._checked("GET", "/api")

    def admin_index(self):
        """GET /_mock: the server's index at the admin API's root."""
        return self.admin("GET", "")

    def health(self):
        """GET /_mock/health: {"status": "ok", "version"} once the server serves."""
        return self.admin("GET", "/health")

    def wait_healthy(self, timeout=30.0):
        """Polls /_mock/health until it answers 200 (a container starting); returns it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.health()
            except (OSError, MockError):
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.1)

    def admin_openapi(self):
        """GET /_mock/openapi.yaml: the admin API's OpenAPI document, as text."""
        return self.admin("GET", "/openapi.yaml")

    def dashboard(self):
        """GET /_mock/ui: the dashboard page (HTML)."""
        return self.admin("GET", "/ui")

    def dashboard_style(self):
        """GET /_mock/ui/app.css: the dashboard's style sheet."""
        return self.admin("GET", "/ui/app.css")

    def dashboard_script(self):
        """GET /_mock/ui/app.js: the dashboard's script."""
        return self.admin("GET", "/ui/app.js")

    # Accounts, tenants, copies and snapshots.

    def reset(self, seed=None):
        """POST /_mock/reset: drops all state; seed="none" leaves out the seed accounts."""
        return self.admin("POST", "/reset", query={"seed": seed})

    def new_account(self, business_name=None, email=None, scopes=None, operator=None, partner=None):
        """POST /_mock/accounts: a ready tenant (user, business, agent, number, key, session)."""
        fields = self.admin("POST", "/accounts", _compact({
            "business_name": business_name, "email": email, "scopes": scopes,
            "operator": operator, "partner": partner}))
        return Account(self, fields)

    def copy_account(self, business_id):
        """POST /_mock/accounts/copy: a new tenant holding a copy of that tenant.

        The returned Account's ids maps every copied record's id to its copy's.
        """
        return Account(self, self.admin("POST", "/accounts/copy", {"business_id": business_id}))

    def delete_account(self, business_id):
        """DELETE /_mock/accounts/{business_id}: deletes the tenant of that root business.

        Every record, its clock and pending work, its script, fault rules,
        rate-limit counters and log entries go; its key and session get 401
        afterwards. Returns {"deleted": business_id}; MockError 404 when no
        such business exists.
        """
        return self.admin("DELETE", "/accounts/" + urllib.parse.quote(business_id, safe=""))

    def clear_rate_limits(self, client_ip=None, business_id=None):
        """DELETE /_mock/rate-limits: clears rate-limit counters; returns {"cleared", ...}.

        client_ip clears that address's counters only (signup's 5 an hour
        per IP: a suite signing up many accounts clears its own address
        between signups); business_id the counters of a tenant's keys and
        sessions; neither, every counter.
        """
        return self.admin("DELETE", "/rate-limits", query={"client_ip": client_ip, "business_id": business_id})

    def tenants(self):
        """GET /_mock/tenants: every tenant with its clock, oldest first."""
        return self.admin("GET", "/tenants")["tenants"]

    def snapshot(self, business_id=None):
        """GET /_mock/snapshot: the tenant's snapshot document, or the whole server's."""
        return self.admin("GET", "/snapshot", query={"business_id": business_id})

    def restore(self, snapshot):
        """POST /_mock/snapshot: restores a document; returns {"restored", "server"}."""
        return self.admin("POST", "/snapshot", snapshot)

    def load_fixtures(self, accounts):
        """POST /_mock/fixtures: accounts with their leads and calls; returns Accounts."""
        got = self.admin("POST", "/fixtures", {"accounts": accounts})
        return [Account(self, a) for a in got["accounts"]]

    def seed_leads(self, business_id, leads):
        """POST /_mock/leads: leads stored in a business as given, all or nothing; returns their ids."""
        return self.admin("POST", "/leads", {"business_id": business_id, "leads": leads})["ids"]

    def seed_calls(self, business_id, calls):
        """POST /_mock/calls: finished calls stored in a business as given, all or nothing; returns their ids."""
        return self.admin("POST", "/calls", {"business_id": business_id, "calls": calls})["ids"]

    # Clocks and the schedule.

    def clock(self, business_id=None):
        """GET /_mock/clock: {"now", "pending"} of a tenant, or the base time."""
        return self.admin("GET", "/clock", query={"business_id": business_id})

    def now(self, business_id=None):
        """The simulated time (RFC 3339) of a tenant, or the base time."""
        return self.clock(business_id)["now"]

    def advance(self, seconds, business_id=None):
        """POST /_mock/clock/advance: moves a tenant's clock (or every clock); returns the clock."""
        return self.admin("POST", "/clock/advance", _compact({"seconds": seconds, "business_id": business_id}))

    def schedule(self, business_id):
        """GET /_mock/schedule: the tenant's pending work, {"business_id", "now", "tasks"}."""
        return self.admin("GET", "/schedule", query={"business_id": business_id})

    # Faults.

    def faults(self):
        """GET /_mock/faults: the fault rules, each with how often it fired."""
        return self.admin("GET", "/faults")["faults"]

    def add_fault(self, **rule):
        """POST /_mock/faults: adds a rule (method, path, status, latency_ms, drop, ...)."""
        return self.admin("POST", "/faults", _compact(rule))

    def remove_fault(self, fault_id):
        """DELETE /_mock/faults?id=: removes one rule (MockError 404 when none has the id)."""
        return self.admin("DELETE", "/faults", query={"id": fault_id})

    def clear_faults(self):
        """DELETE /_mock/faults: removes every rule."""
        return self.admin("DELETE", "/faults")

    # Request journal.

    def requests(self, method=None, path=None, status=None, business_id=None, after=None,
                 limit=None, wait=None):
        """GET /_mock/requests: the journal, {"requests", "count", "latest_seq"}.

        wait (seconds, at most 60) long-polls for a new matching entry:
        one after after, or without after one journaled from now on.
        """
        query = {"method": method, "path": path, "status": status, "business_id": business_id,
                 "after": after, "limit": limit}
        wait = _wait_param(query, wait)
        return self.admin("GET", "/requests", query=query, wait=wait)

    def wait_requests(self, timeout=10.0, after=0, **filters):
        """Waits up to timeout seconds for a journal entry matching the filters after seq after.

        Returns the matching entries (at least one); raises TimeoutError
        when none came. after=0 counts the entries already kept.
        """
        return _until(timeout, lambda left: self.requests(after=after, wait=left, **filters)["requests"],
                      bool, lambda got: f"no request matching {filters} within {timeout}s")

    # Webhook deliveries.

    def deliveries(self, kind=None, subscription_id=None, call_id=None, approval_request_id=None,
                   business_id=None, event_id=None, event=None, status=None, min_attempts=None,
                   wait=None, count=None):
        """GET /_mock/deliveries: deliveries with their attempts, newest first.

        wait (seconds, at most 60) long-polls until count (default 1) match.
        """
        query = {"kind": kind, "subscription_id": subscription_id, "call_id": call_id,
                 "approval_request_id": approval_request_id, "business_id": business_id,
                 "event_id": event_id, "event": event, "status": status,
                 "min_attempts": min_attempts, "count": count}
        wait = _wait_param(query, wait)
        return self.admin("GET", "/deliveries", query=query, wait=wait)["deliveries"]

    def wait_deliveries(self, count=1, timeout=10.0, **filters):
        """Waits up to timeout seconds until count deliveries match the filters.

        Returns them; raises TimeoutError with what matched when fewer came.
        """
        return _until(timeout, lambda left: self.deliveries(wait=left, count=count, **filters),
                      lambda got: len(got) >= count,
                      lambda got: f"{len(got)} of {count} deliveries matching {filters} within {timeout}s: {got}")

    def replay_delivery(self, delivery_id):
        """POST /_mock/deliveries/replay: sends a delivery again; returns the new delivery."""
        return self.admin("POST", "/deliveries/replay", {"delivery_id": delivery_id})

    def emit_event(self, business_id, event, data=None):
        """POST /_mock/events: emits an event now (sample data when data is None)."""
        return self.admin("POST", "/events", _compact({"business_id": business_id, "event": event, "data": data}))

    def receiver_check(self, url=None, secret=None, subscription_id=None, events=None):
        """POST /_mock/receiver-checks: runs the receiver checks now.

        Give url and secret (the whsec_ signing secret), or subscription_id;
        events limits the accepts_valid checks. Returns the report:
        {url, passed, checks: [{id, event, required, passed, status,
        duration_ms, detail}]}.
        """
        return self.admin("POST", "/receiver-checks", _compact({
            "url": url, "secret": secret, "subscription_id": subscription_id, "events": events}))

    # Outbox.

    def outbox(self, to=None, business_id=None, wait=None):
        """GET /_mock/outbox: emails and texts sent to people, oldest first.

        wait (seconds, at most 60) long-polls until something matches.
        """
        query = {"to": to, "business_id": business_id}
        wait = _wait_param(query, wait)
        return self.admin("GET", "/outbox", query=query, wait=wait)["messages"]

    def wait_outbox(self, to=None, business_id=None, timeout=10.0):
        """Waits up to timeout seconds for a message; returns the messages, raises TimeoutError."""
        return _until(timeout, lambda left: self.outbox(to=to, business_id=business_id, wait=left),
                      bool, lambda got: f"no message to {to or 'anyone'} within {timeout}s")

    # Telephony.

    def inbound_call(self, to, from_, caller=None, answered=None, voicemail=None, duration=None):
        """POST /_mock/inbound-call: a caller (from_) rings the platform number to; returns the call."""
        return self.admin("POST", "/inbound-call", _compact({
            "to": to, "from": from_, "caller": caller, "answered": answered,
            "voicemail": voicemail, "duration": duration}))

    def inbound_sms(self, to, from_, body):
        """POST /_mock/inbound-sms: a person (from_) texts the number to; returns {message_id, lead_id, consent}."""
        return self.admin("POST", "/inbound-sms", {"to": to, "from": from_, "body": body})

    def set_dnc(self, phone, business_id=None, on_list=True):
        """POST /_mock/dnc: puts a number on the national registry (or a business's list), or takes it off."""
        return self.admin("POST", "/dnc", _compact({"phone": phone, "business_id": business_id, "on_list": on_list}))

    def add_dnc(self, phone, business_id=None):
        """Puts a number on a do-not-call list (the national registry without business_id)."""
        return self.set_dnc(phone, business_id, True)

    def remove_dnc(self, phone, business_id=None):
        """Takes a number off a do-not-call list."""
        return self.set_dnc(phone, business_id, False)

    def set_consent(self, business_id, phone, status):
        """POST /_mock/consent: sets a number's SMS consent (opted_in, opted_out or none)."""
        return self.admin("POST", "/consent", {"business_id": business_id, "phone": phone, "status": status})

    def consent(self, business_id, phone):
        """GET /_mock/consent: {"status", "on_dnc"} of a number towards a business."""
        return self.admin("GET", "/consent", query={"business_id": business_id, "phone": phone})

    def calls(self, business_id=None, status=None, limit=None):
        """GET /_mock/calls: the calls of every tenant, or of one, newest first."""
        return self.admin("GET", "/calls", query={"business_id": business_id, "status": status, "limit": limit})

    def provider_call(self, call_id):
        """GET /_mock/provider-calls: what the simulated voice provider received for a call."""
        return self.admin("GET", "/provider-calls", query={"call_id": call_id})

    def prompt_audit(self, agent_id):
        """GET /_mock/prompt-audit: the audit trail of an agent's prompt changes."""
        return self.admin("GET", "/prompt-audit", query={"agent_id": agent_id})["entries"]

    # Scripts.

    def add_script(self, business_id, calls=None, texts=None):
        """POST /_mock/scripts: adds call and text steps to the tenant's script; returns the steps."""
        return self.admin("POST", "/scripts", _compact({"business_id": business_id, "calls": calls, "texts": texts}))["steps"]

    def script_steps(self, business_id):
        """GET /_mock/scripts: the tenant's steps, used and pending, oldest first."""
        return self.admin("GET", "/scripts", query={"business_id": business_id})["steps"]

    def clear_script(self, business_id):
        """DELETE /_mock/scripts: removes the pending steps; returns how many."""
        return self.admin("DELETE", "/scripts", query={"business_id": business_id})["deleted"]

    def verify_script(self, business_id):
        """Raises ScriptNotUsedError (an AssertionError) naming each step no call or text used."""
        unused = [s for s in self.script_steps(business_id) if s["status"] != "used"]
        if unused:
            raise ScriptNotUsedError(unused)

    # The outbound-sales pipeline.

    def run_sdr_cron(self):
        """POST /_mock/sdr/cron: runs the SDR scheduled runner now; returns {"runs": [...]}."""
        return self.admin("POST", "/sdr/cron")


class Account:
    """A tenant on a mock server, with the helpers about it.

    Its attributes are the fields POST /_mock/accounts answers: api_key,
    business_id, agent_id, phone_number, user_id, session, and with
    partner=True partner_id and referral_code; a copy also has ids (every
    copied record's id mapped to its copy's). fields holds them all.
    """

    def __init__(self, server, fields):
        self.server = server
        self.fields = fields
        self.api_key = fields["api_key"]
        self.business_id = fields["business_id"]
        self.agent_id = fields.get("agent_id", "")
        self.phone_number = fields.get("phone_number", "")
        self.user_id = fields.get("user_id", "")
        self.session = fields.get("session", "")
        self.partner_id = fields.get("partner_id", "")
        self.referral_code = fields.get("referral_code", "")
        self.ids = fields.get("ids", {})

    def __repr__(self):
        return f"Account(business_id={self.business_id!r})"

    def api(self, method, path, body=None, headers=None):
        """Sends a request to the API (path under /api) with the account's key; returns the Response."""
        return self.server.api(method, path, body, self.api_key, headers)

    def clock(self):
        """The tenant's clock: {"now", "business_id", "pending"}."""
        return self.server.clock(self.business_id)

    def now(self):
        """The tenant's simulated time (RFC 3339)."""
        return self.server.now(self.business_id)

    def advance(self, seconds):
        """Moves the tenant's clock only; what falls due runs. Returns the clock."""
        return self.server.advance(seconds, self.business_id)

    def schedule(self):
        """The tenant's pending work: {"business_id", "now", "tasks"}."""
        return self.server.schedule(self.business_id)

    def delete(self):
        """Deletes the tenant (see MockServer.delete_account): its key then gets 401."""
        return self.server.delete_account(self.business_id)

    def delete_quietly(self):
        """Deletes the tenant unless it is gone already: a test's cleanup."""
        try:
            self.delete()
        except MockError as err:
            if err.status != 404:
                raise

    def copy(self):
        """A new tenant holding a copy of this one (see MockServer.copy_account)."""
        return self.server.copy_account(self.business_id)

    def snapshot(self):
        """The tenant's snapshot document."""
        return self.server.snapshot(self.business_id)

    def restore(self, snapshot):
        """Restores a snapshot document (this tenant's, taken earlier)."""
        return self.server.restore(snapshot)

    def script(self, calls=None, texts=None):
        """Adds steps to the tenant's script; returns them."""
        return self.server.add_script(self.business_id, calls, texts)

    def script_steps(self):
        """The tenant's script steps, used and pending."""
        return self.server.script_steps(self.business_id)

    def clear_script(self):
        """Removes the tenant's pending steps; returns how many."""
        return self.server.clear_script(self.business_id)

    def verify_script(self):
        """Raises ScriptNotUsedError (an AssertionError) naming each step nothing used."""
        self.server.verify_script(self.business_id)

    def requests(self, **filters):
        """The journal of the tenant's requests (see MockServer.requests)."""
        return self.server.requests(business_id=self.business_id, **filters)

    def wait_requests(self, timeout=10.0, after=0, **filters):
        """Waits for a journal entry of the tenant (see MockServer.wait_requests)."""
        return self.server.wait_requests(timeout=timeout, after=after, business_id=self.business_id, **filters)

    def deliveries(self, **filters):
        """The tenant's webhook deliveries (see MockServer.deliveries)."""
        return self.server.deliveries(business_id=self.business_id, **filters)

    def wait_deliveries(self, count=1, timeout=10.0, **filters):
        """Waits until count deliveries of the tenant match (see MockServer.wait_deliveries)."""
        return self.server.wait_deliveries(count=count, timeout=timeout, business_id=self.business_id, **filters)

    def outbox(self, to=None, wait=None):
        """Messages sent for the tenant (see MockServer.outbox)."""
        return self.server.outbox(to=to, business_id=self.business_id, wait=wait)

    def wait_outbox(self, to=None, timeout=10.0):
        """Waits for a message sent for the tenant (see MockServer.wait_outbox)."""
        return self.server.wait_outbox(to=to, business_id=self.business_id, timeout=timeout)

    def add_fault(self, **rule):
        """Adds a fault rule that fires on the tenant's requests only."""
        return self.server.add_fault(business_id=self.business_id, **rule)

    def emit_event(self, event, data=None):
        """Emits an event of the tenant's business now."""
        return self.server.emit_event(self.business_id, event, data)

    def inbound_call(self, from_, to=None, **options):
        """A caller rings the account's number (or to); options as MockServer.inbound_call."""
        return self.server.inbound_call(to or self.phone_number, from_, **options)

    def inbound_sms(self, from_, body, to=None):
        """A person texts the account's number (or to)."""
        return self.server.inbound_sms(to or self.phone_number, from_, body)

    def set_consent(self, phone, status):
        """Sets a number's SMS consent towards the account's business."""
        return self.server.set_consent(self.business_id, phone, status)

    def consent(self, phone):
        """A number's consent and do-not-call state towards the account's business."""
        return self.server.consent(self.business_id, phone)

    def add_dnc(self, phone):
        """Puts a number on the business's own do-not-call list."""
        return self.server.add_dnc(phone, self.business_id)

    def remove_dnc(self, phone):
        """Takes a number off the business's own do-not-call list."""
        return self.server.remove_dnc(phone, self.business_id)

    def calls(self, status=None, limit=None):
        """The tenant's calls, newest first (GET /_mock/calls)."""
        return self.server.calls(self.business_id, status, limit)


# Test framework helpers.

_shared = {}
_shared_lock = threading.Lock()


def shared_server():
    """The MockServer of VOICEAGENT_MOCK_URL and VOICEAGENT_MOCK_ADMIN_TOKEN, one per process."""
    with _shared_lock:
        if "server" not in _shared:
            _shared["server"] = MockServer()
        return _shared["server"]


class MockServerTestMixin:
    """Mix into a unittest.TestCase (before it) to give each test an account of its own.

        class CallsTest(voiceagent_mock.MockServerTestMixin, unittest.TestCase):
            def test_call(self):
                resp = self.account.api("POST", "/v1/calls", {...})

    self.mock is the shared MockServer; self.account is made in setUp with
    mock_account_options; self.new_account() makes more. Each account is
    deleted when the test ends (the shared server keeps only what running
    tests use). With verify_scripts set, each account's script is verified
    first (a step left unused fails it).
    """

    mock_account_options = {}
    verify_scripts = False

    def setUp(self):
        super().setUp()
        self.mock = shared_server()
        self.account = self.new_account(**self.mock_account_options)

    def new_account(self, **options):
        """Makes an account for this test (business named after it unless given)."""
        options.setdefault("business_name", self.id().rsplit(".", 1)[-1][:200])
        acct = self.mock.new_account(**options)
        self.addCleanup(acct.delete_quietly)
        if self.verify_scripts:
            self.addCleanup(acct.verify_script)
        return acct


def mock_server_fixture():
    """Yields the shared MockServer once it is healthy: the body of a session fixture."""
    server = shared_server()
    server.wait_healthy()
    yield server


def mock_account_fixture(server, name="test", verify_script=False):
    """Yields a new Account on server, verifying its script afterwards when asked, then deleting it: the body of a test fixture."""
    acct = server.new_account(business_name=name[:200])
    try:
        yield acct
        if verify_script:
            acct.verify_script()
    finally:
        acct.delete_quietly()


def pytest_fixtures(verify_scripts=False):
    """Returns pytest fixtures (mock_server, session-scoped; mock_account, per test).

    In a conftest.py:

        from voiceagent_mock import pytest_fixtures
        mock_server, mock_account = pytest_fixtures()

    pytest is imported only here, so the module works without it.
    """
    import pytest

    @pytest.fixture(scope="session", name="mock_server")
    def _mock_server():
        yield from mock_server_fixture()

    @pytest.fixture(name="mock_account")
    def _mock_account(mock_server, request):
        yield from mock_account_fixture(mock_server, request.node.name, verify_scripts)

    return _mock_server, _mock_account
