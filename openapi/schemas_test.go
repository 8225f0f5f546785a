package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compiled holds every schema compiled once by one compiler, format assertion on, the way the
// mock server compiles them.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, name := range SchemaNames() {
		raw, ok := Schema(name)
		if !ok {
			return nil, fmt.Errorf("schema %s listed but not readable", name)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := c.AddResource(SchemaID(name), doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	out := make(map[string]*jsonschema.Schema)
	for _, name := range SchemaNames() {
		sch, err := c.Compile(SchemaID(name))
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		out[name] = sch
	}
	return out, nil
})

func schemaFor(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	all, err := compiled()
	require.NoError(t, err)
	sch, ok := all[name]
	require.True(t, ok, "no schema %s", name)
	return sch
}

func validate(t *testing.T, name, body string) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	require.NoError(t, err, "test body is not JSON: %s", body)
	return schemaFor(t, name).Validate(inst)
}

// leafLocations returns the JSON pointers of the instance locations of the innermost errors, the
// fields a client would be told about.
func leafLocations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		_, isPropName := e.ErrorKind.(*kind.PropertyNames)
		if len(e.Causes) == 0 || isPropName {
			p := ""
			if len(e.InstanceLocation) > 0 {
				p = "/" + strings.Join(e.InstanceLocation, "/")
			}
			out = append(out, p)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func TestSchemaNamesAndSchema(t *testing.T) {
	names := SchemaNames()
	entries, err := Schemas.ReadDir("schemas")
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		files = append(files, strings.TrimSuffix(e.Name(), ".json"))
	}
	assert.Equal(t, files, names, "SchemaNames lists every file, sorted")
	assert.IsNonDecreasing(t, names)

	want := []string{
		"common", "signupOtpRequest", "signupOtpVerify", "signupPayment", "agentCreate", "agentUpdate",
		"callCreate", "leadUpdate", "smsSend", "smsUpdatePrompt", "keyCreate", "webhookUpsert",
		"productUpsert", "knowledgeUpsert", "communicationRunCreate", "governedUpdateRequest", "governedUpdateDecision",
		"approvalChannelRequest", "agentPersonaLoad", "sdrAction", "sdrConfigUpsert", "sdrRun",
		"eventsReplay", "webhookRotateSecret", "agencyProfileCommand", "agencyOfferCommand",
		"agencyEnrollmentCommand", "agencyInstallationCommand",
	}
	assert.ElementsMatch(t, want, names)

	for _, name := range names {
		raw, ok := Schema(name)
		require.True(t, ok, name)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc), name)
		assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"], name)
		assert.Equal(t, SchemaID(name), doc["$id"], name)
		assert.Equal(t, "https://api.voiceagent.example/schemas/"+name+".json", doc["$id"], name)
		assert.NotEmpty(t, doc["title"], name)
		assert.NotEmpty(t, doc["description"], name)
	}

	for _, bad := range []string{"", "nope", "../openapi", "schemas/common", "common.json", "common/"} {
		_, ok := Schema(bad)
		assert.False(t, ok, "Schema(%q)", bad)
	}
}

func TestSchemasCompile(t *testing.T) {
	all, err := compiled()
	require.NoError(t, err)
	assert.Len(t, all, len(SchemaNames()))
}

// ---------------------------------------------------------------------------- body helpers

const (
	u1  = "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	u2  = "9b2f7c1e-3d4a-4b5c-8d6e-7f8091a2b3c4"
	hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

var placeholders = strings.NewReplacer("$U1", u1, "$U2", u2, "$HEX", hex, "$FACTS", validFacts)

// expand replaces the placeholders $U1, $U2, $HEX and $FACTS (which itself holds placeholders).
func expand(s string) string { return placeholders.Replace(placeholders.Replace(s)) }

// validFacts uses every part of the facts object.
const validFacts = `{
  "schemaVersion": 1,
  "profile": {"timezone": "America/New_York", "services": ["Drain cleaning", "Water heaters"],
    "serviceArea": "Brooklyn and Queens", "hours": "Mon-Fri 8-18", "instructions": "Be brief.",
    "website": "https://plumber.example", "reviewUrl": ""},
  "discovery": {
    "observations": [
      {"field": "hours", "value": "Mon-Fri 8-18", "sourceRef": "website", "observedAt": "2026-06-01T10:00:00Z",
       "state": "suggestion", "revision": "$HEX", "ownerRole": "agency_operator"},
      {"field": "languages", "value": ["en", "es"], "sourceRef": "call", "observedAt": null,
       "state": "owner_confirmed", "revision": "$HEX", "ownerRole": "client_owner"},
      {"field": "trucks", "value": 3, "sourceRef": "call", "observedAt": null, "state": "unknown",
       "revision": "$HEX", "ownerRole": "provider"},
      {"field": "licensed", "value": true, "sourceRef": "call", "observedAt": null, "state": "conflict",
       "revision": "$HEX", "ownerRole": "provider"},
      {"field": "fax", "value": null, "sourceRef": "call", "observedAt": null, "state": "unknown",
       "revision": "$HEX", "ownerRole": "provider"}
    ],
    "locations": [{"id": "main", "label": "Main shop", "serviceArea": "Brooklyn", "languages": ["en", "es"],
      "timezone": "America/New_York", "reviewUrl": "https://reviews.example/main"}],
    "primaryLocationId": "main",
    "tools": [
      {"name": "OldCRM", "purpose": "crm", "decision": "integrate", "executor": "kai", "connectionRef": null},
      {"name": "Calendly", "purpose": "booking", "decision": "retain", "executor": "existing", "connectionRef": "conn-1"}
    ]
  },
  "intakeCoverage": {"timezone": "America/New_York",
    "schedule": [{"day": 0, "start": "00:00", "end": "23:59"}, {"day": 6, "start": "08:00", "end": "12:30"}],
    "afterHours": "Take a message."},
  "qualification": [{"question": "What is the address?", "instruction": "Needed for dispatch."}],
  "routing": {"kind": "owner_notification", "destination": "owner@plumber.example",
    "destinationPhone": "+15551230002", "connectionRef": "", "instruction": "Text the owner."},
  "fallback": {"mode": "transfer", "instruction": "Transfer to the owner.", "phone": "+15551230002"},
  "booking": {"enabled": true, "instruction": "Offer the next free slot."},
  "faqs": [{"question": "Do you work weekends?", "answer": "Saturdays only."}],
  "reporting": {"timezone": "America/New_York", "recipientUserIds": ["$U1", "$U2"]}
}`

const minimalFacts = `{"schemaVersion": 1, "profile": {"timezone": "", "services": [], "serviceArea": "",
  "hours": "", "instructions": "", "website": "", "reviewUrl": ""}}`

type edit struct {
	ptr string
	val string // JSON literal; unused when del
	del bool
}

// set replaces (or adds) the value at a JSON pointer; val is a JSON literal. An array index equal
// to the length appends.
func set(ptr, val string) edit { return edit{ptr: ptr, val: val} }

// del removes the member or array element at a JSON pointer.
func del(ptr string) edit { return edit{ptr: ptr, del: true} }

// with applies edits to a JSON document.
func with(base string, edits ...edit) string {
	var doc any
	if err := json.Unmarshal([]byte(expand(base)), &doc); err != nil {
		panic(fmt.Sprintf("base document: %v\n%s", err, base))
	}
	for _, e := range edits {
		toks := strings.Split(e.ptr, "/")[1:]
		doc = apply(doc, toks, e)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return string(out)
}

func apply(node any, toks []string, e edit) any {
	if len(toks) == 0 {
		var v any
		if err := json.Unmarshal([]byte(expand(e.val)), &v); err != nil {
			panic(fmt.Sprintf("edit value %q: %v", e.val, err))
		}
		return v
	}
	switch n := node.(type) {
	case map[string]any:
		if len(toks) == 1 && e.del {
			delete(n, toks[0])
			return n
		}
		n[toks[0]] = apply(n[toks[0]], toks[1:], e)
		return n
	case []any:
		i, err := strconv.Atoi(toks[0])
		if err != nil {
			panic(err)
		}
		if len(toks) == 1 && e.del {
			return append(n[:i], n[i+1:]...)
		}
		if i == len(n) {
			n = append(n, nil)
		}
		n[i] = apply(n[i], toks[1:], e)
		return n
	}
	panic(fmt.Sprintf("cannot apply %v to %T", toks, node))
}

// rep is a JSON array of n copies of item (a JSON literal).
func rep(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
}

// uuids is a JSON array of n distinct uuids.
func uuids(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(`"%08x-0000-4000-8000-000000000000"`, i)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// strs is a JSON array of n distinct strings.
func strs(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(`"s%d"`, i)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// str is a JSON string of n characters.
func str(n int) string { return `"` + strings.Repeat("a", n) + `"` }

// objN is a JSON object of n members, each with value val.
func objN(n int, val string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(`"X-H%d": %s`, i, val)
	}
	return "{" + strings.Join(s, ",") + "}"
}

// ---------------------------------------------------------------------------- cases

type tcase struct {
	name  string
	body  string
	valid bool
	at    string // invalid cases: JSON pointer of a field the error must point at ("" is the body)
	msg   string // invalid cases: optional text the error must contain
}

func ok(name, body string) tcase { return tcase{name: name, body: expand(body), valid: true} }

func bad(name, body, at string, msg ...string) tcase {
	tc := tcase{name: name, body: expand(body), at: at}
	if len(msg) > 0 {
		tc.msg = msg[0]
	}
	return tc
}

const (
	signupReq = `{"business_name": "Acme Plumbing", "email": "owner@acme.example", "business_type": "plumber",
  "website": "https://acme.example", "phone_forward_to": "+15551230002", "phone": "+15551230003",
  "referral_code": "PARTNER1", "via": "api", "attribution": {"utm_source": "x"}, "how_heard": "friend",
  "api_key_scopes": ["agents:read", "calls:write", "sdr:read", "support:write", "call_evidence:read"],
  "activation_mode": "otp"}`
	agentCreateBody = `{"business_id": "$U1", "name": "Front desk", "system_prompt": "You answer calls.",
  "first_message": "Hi", "voice_catalog_id": "v-1", "voice": {"provider": "11labs", "voiceId": "rachel"},
  "model": {"provider": "openai", "model": "gpt-4o", "temperature": 0.7}, "metadata": {"k": "v"}}`
	agentUpdateBody = `{"id": "$U1", "name": "Desk", "inbound_prompt": "In", "outbound_prompt": "Out", "sms_prompt": "Sms",
  "system_prompt": "In", "first_message": "Hi", "outbound_first_message": "Hello", "outbound_llm": "gpt-4o-mini",
  "sms_llm": {"provider": "openai", "model": "gpt-4o"}, "voice_catalog_id": "v-2",
  "voice": {"provider": "11labs", "voiceId": "adam"}, "model": {"temperature": 2}, "metadata": {"a": 1},
  "max_duration": 900, "vendor_config": {"silenceTimeoutSeconds": 30}, "transfer_enabled": true,
  "transfer_phone_number": "+15551230002", "owner_change_summary": "s", "owner_change_reason": "r",
  "override_owner_edits": false}`
	callBody = `{"agent_id": "$U1", "to": "+15551230001", "name": "Jane", "context": "Follow up on quote",
  "firstMessage": "Hi Jane", "lead_id": "$U2", "webhook_url": "https://hooks.example/calls", "max_duration": 600}`
	webhookBody = `{"id": "$U1", "business_id": "$U2", "webhook_url": "https://crm.example/hooks",
  "events": ["lead.created", "call.completed", "conversation.handoff"], "description": null, "is_active": true,
  "preset": "hubspot",
  "payload_template": {"fields": {"contact.name": "data.name|data.first_name", "source": {"value": "voiceagent"},
    "score": {"value": 42}, "hot": {"value": true}, "none": {"value": null}}},
  "custom_headers": {"Authorization": "Bearer x", "X-Tenant": null, "X-Host": "h"},
  "http_method": "PUT", "body_format": "form"}`
	runBody = `{"business_id": "$U1", "external_ref": "campaign-42", "assigned_number_id": "+15551230009",
  "agent_id": null, "metadata": {},
  "touches": [
    {"touch_id": "t1", "channel": "call",
     "target": {"phone": "+15551230001", "lead_id": "$U2", "name": "Jane", "email": "jane@x.example",
       "timezone": "America/New_York", "state": "NY"},
     "scheduled_at": "2026-06-05T15:00:00Z",
     "timing_window": {"not_before": "2026-06-05T14:00:00Z", "not_after": null}, "context": {"quote": "Q-1"},
     "metadata": {"m": 1}},
    {"touch_id": "t2", "channel": "sms", "target": {"phone": "+15551230001", "lead_id": null, "email": null},
     "scheduled_at": "2026-06-06T15:00:00+02:00", "timing_window": null, "message": "Still interested?",
     "sms_category": "follow_up"}
  ]}`
	governedBody = `{"intent": "agent.patch", "business_id": "$U1", "target": {"agent_id": "$U2"},
  "payload": {"first_message": "Hi"}, "idempotency_key": "k-1",
  "actor": {"type": "integration", "id": "crm", "display_name": "CRM"},
  "authority": {"mode": "human_confirmed", "confirmed_by": "owner", "confirmed_at": "2026-06-05T10:00:00Z",
    "confirmation_ref": "call-1"},
  "dry_run": false, "queue_for_approval": true, "reason": "owner asked", "source_ref": "ticket-9",
  "x_extra": "allowed"}`
	approvalBody = `{"source": "billing-guard_2", "source_request_id": "req-1", "source_intent_id": "int-1",
  "message_id": "m-1", "responds_to_hash": "sha256:$HEX", "principal_id": "owner-1",
  "channel": {"type": "voice_then_sms", "address": "+15551230001"}, "summary": "Approve refund of $40",
  "risk_level": "medium", "required_factors": ["pin"], "expires_at": "2026-06-05T12:00:00Z",
  "callback_url": "https://control.example/cb", "callback_secret_id": "sec-1"}`
	personaBody = `{"agent_id": "$U1", "persona": {"lead_name": "Sam", "scenario": "Leaky faucet", "objective": "Book",
  "script": "...", "persona_traits": ["impatient"], "facts_to_reveal": ["address"], "facts_to_withhold": ["budget"],
  "callback_number": "+15551230003", "opener": "Hi there"}, "first_message": "Hello Sam",
  "voice": {"provider": "11labs", "voiceId": "sam"}, "model": {"temperature": 0.2}}`
	sdrConfigBody = `{"businessId": "$U1", "enabled": true, "min_touch_gap_hours": 0, "max_touches": 5,
  "auto_call": true, "auto_email": false, "auto_sms": true, "sdr_agent_id": "$U2", "business_hours_start": 0,
  "business_hours_end": 23, "email_from_account_id": "acct-1"}`

	bootstrapBody = `{"action": "bootstrap", "brand": {"name": "Acme Agency", "logoUrl": ""},
  "support": {"email": "help@acme.example", "ownerName": "Ann", "helpUrl": "https://acme.example/help",
    "coverage": "Mon-Fri 9-5"}}`
	profileUpdateBody = `{"action": "update", "partnerId": "$U1", "expectedRevision": "$U2",
  "brand": {"name": "Acme", "logoUrl": "https://acme.example/logo.png"},
  "support": {"email": "help@acme.example", "ownerName": "Ann", "coverage": "24/7"}, "commercialMode": "partner_billed"}`
	offerDraft = `{"name": "Intake for law firms", "industry": "legal", "commercialMode": "commission",
  "retail": {"monthlyCents": 49900, "currency": "USD", "scope": "Intake line", "collection": "agency_external"},
  "packages": [{"key": "convert", "version": "2026-06", "variant": "standard"},
    {"key": "care", "version": "1", "variant": "lite"}, {"key": "improve", "version": "1", "variant": "x"}],
  "supportedClaims": ["approved_intake_setup", "recorded_activity_reporting"],
  "supportPolicy": "Email within one business day.", "brandingLimitationsAcknowledged": true}`
	offerSave    = `{"action": "save", "partnerId": "$U1", "draft": ` + offerDraft + `}`
	offerPublish = `{"action": "publish", "partnerId": "$U1", "offerId": "$U2", "expectedRevision": "$U1", "fingerprint": "$HEX"}`
	selfService  = `{"action": "start_self_service", "offerVersionId": "$U1", "name": "Acme Plumbing", "facts": $FACTS}`
	enrollCreate = `{"action": "create", "partnerId": "$U1", "offerVersionId": "$U2", "ownerEmail": "o@acme.example",
  "entries": [
    {"businessId": "$U2", "expectedRevision": "$HEX", "facts": $FACTS},
    {"newClient": {"name": "New Co", "externalRef": "crm-77", "ownerEmail": "boss@new.example"},
     "expectedRevision": null, "facts": {"schemaVersion": 1, "profile": {"timezone": "", "services": [],
       "serviceArea": "", "hours": "", "instructions": "", "website": "", "reviewUrl": ""}}}
  ]}`
	enrollEnroll = `{"action": "enroll", "partnerId": "$U1", "sessionId": "$U2", "expectedRevision": "$U1",
  "fingerprint": "$HEX", "approvalIds": ["$U1", "$U2"]}`
	instPreview = `{"action": "preview_route_receipt", "partnerId": "$U1", "installationId": "$U2", "expectedRevision": "$HEX"}`
	instResolve = `{"action": "resolve_update", "partnerId": "$U1", "installationId": "$U2", "expectedRevision": "$HEX",
  "updateId": "$U1", "fingerprint": "$HEX", "choices": {"greeting": "keep"}}`
	instScenarios = `{"action": "run_scenarios", "partnerId": "$U1", "installationId": "$U2", "expectedRevision": "$HEX",
  "scenarios": ["after_hours", "emergency"]}`
)

// factsCases checks the facts object through a body that carries it at prefix.
func factsCases(body, prefix string) []tcase {
	f := func(p string) string { return prefix + p }
	return []tcase{
		ok("facts: minimal", with(body, set(f(""), minimalFacts))),
		ok("facts: observation value array of 30", with(body, set(f("/discovery/observations/0/value"), strs(30)))),
		ok("facts: primaryLocationId null", with(body, set(f("/discovery/primaryLocationId"), "null"))),
		ok("facts: maxima", with(body,
			set(f("/profile/services"), rep(str(120), 20)), set(f("/profile/instructions"), str(3000)),
			set(f("/discovery/observations"), rep(`{"field": "f", "value": null, "sourceRef": "s", "observedAt": null,
			  "state": "unknown", "revision": "$HEX", "ownerRole": "provider"}`, 150)),
			set(f("/faqs"), rep(`{"question": "q", "answer": "a"}`, 30)),
			set(f("/qualification"), rep(`{"question": "q", "instruction": "i"}`, 20)),
			set(f("/reporting/recipientUserIds"), uuids(20)))),
		bad("facts: unknown top key", with(body, set(f("/extra"), "1")), f(""), "extra"),
		bad("facts: schemaVersion 2", with(body, set(f("/schemaVersion"), "2")), f("/schemaVersion")),
		bad("facts: schemaVersion string", with(body, set(f("/schemaVersion"), `"1"`)), f("/schemaVersion")),
		bad("facts: no schemaVersion", with(body, del(f("/schemaVersion"))), f(""), "schemaVersion"),
		bad("facts: no profile", with(body, del(f("/profile"))), f(""), "profile"),
		bad("facts: profile without reviewUrl", with(body, del(f("/profile/reviewUrl"))), f("/profile"), "reviewUrl"),
		bad("facts: profile without services", with(body, del(f("/profile/services"))), f("/profile"), "services"),
		bad("facts: profile unknown key", with(body, set(f("/profile/phone"), `"x"`)), f("/profile"), "phone"),
		bad("facts: 21 services", with(body, set(f("/profile/services"), rep(`"s"`, 21))), f("/profile/services")),
		bad("facts: empty service", with(body, set(f("/profile/services/0"), `""`)), f("/profile/services/0")),
		bad("facts: service of 121", with(body, set(f("/profile/services/0"), str(121))), f("/profile/services/0")),
		bad("facts: timezone of 101", with(body, set(f("/profile/timezone"), str(101))), f("/profile/timezone")),
		bad("facts: serviceArea of 501", with(body, set(f("/profile/serviceArea"), str(501))), f("/profile/serviceArea")),
		bad("facts: hours of 1001", with(body, set(f("/profile/hours"), str(1001))), f("/profile/hours")),
		bad("facts: instructions of 3001", with(body, set(f("/profile/instructions"), str(3001))), f("/profile/instructions")),
		bad("facts: website not a URI", with(body, set(f("/profile/website"), `"plumber.example"`)), f("/profile/website")),
		bad("facts: website of 1001", with(body, set(f("/profile/website"), `"https://x.example/`+strings.Repeat("a", 983)+`"`)), f("/profile/website")),
		bad("facts: reviewUrl null", with(body, set(f("/profile/reviewUrl"), "null")), f("/profile/reviewUrl")),
		bad("facts: discovery without tools", with(body, del(f("/discovery/tools"))), f("/discovery"), "tools"),
		bad("facts: discovery without primaryLocationId", with(body, del(f("/discovery/primaryLocationId"))), f("/discovery"), "primaryLocationId"),
		bad("facts: discovery unknown key", with(body, set(f("/discovery/notes"), `""`)), f("/discovery"), "notes"),
		bad("facts: 151 observations", with(body, set(f("/discovery/observations"), rep(`{"field": "f", "value": null,
		  "sourceRef": "s", "observedAt": null, "state": "unknown", "revision": "$HEX", "ownerRole": "provider"}`, 151))),
			f("/discovery/observations")),
		bad("facts: observation state", with(body, set(f("/discovery/observations/0/state"), `"maybe"`)), f("/discovery/observations/0/state")),
		bad("facts: observation ownerRole", with(body, set(f("/discovery/observations/0/ownerRole"), `"ceo"`)), f("/discovery/observations/0/ownerRole")),
		bad("facts: observation revision uppercase", with(body, set(f("/discovery/observations/0/revision"), `"`+strings.ToUpper(hex)+`"`)), f("/discovery/observations/0/revision")),
		bad("facts: observation revision short", with(body, set(f("/discovery/observations/0/revision"), `"`+hex[:63]+`"`)), f("/discovery/observations/0/revision")),
		bad("facts: observation value object", with(body, set(f("/discovery/observations/0/value"), `{}`)), f("/discovery/observations/0/value")),
		bad("facts: observation value of 3001", with(body, set(f("/discovery/observations/0/value"), str(3001))), f("/discovery/observations/0/value")),
		bad("facts: observation value array of 31", with(body, set(f("/discovery/observations/0/value"), strs(31))), f("/discovery/observations/0/value")),
		bad("facts: observation value array item of 501", with(body, set(f("/discovery/observations/0/value"), "["+str(501)+"]")), f("/discovery/observations/0/value/0")),
		bad("facts: observation value array of numbers", with(body, set(f("/discovery/observations/0/value"), "[1]")), f("/discovery/observations/0/value/0")),
		bad("facts: observation observedAt", with(body, set(f("/discovery/observations/0/observedAt"), `"yesterday"`)), f("/discovery/observations/0/observedAt")),
		bad("facts: observation field empty", with(body, set(f("/discovery/observations/0/field"), `""`)), f("/discovery/observations/0/field")),
		bad("facts: observation sourceRef of 301", with(body, set(f("/discovery/observations/0/sourceRef"), str(301))), f("/discovery/observations/0/sourceRef")),
		bad("facts: observation without sourceRef", with(body, del(f("/discovery/observations/0/sourceRef"))), f("/discovery/observations/0"), "sourceRef"),
		bad("facts: observation unknown key", with(body, set(f("/discovery/observations/0/confidence"), "1")), f("/discovery/observations/0"), "confidence"),
		bad("facts: 21 locations", with(body, set(f("/discovery/locations"), rep(`{"id": "a", "label": "b",
		  "serviceArea": "c", "languages": ["en"], "timezone": "", "reviewUrl": ""}`, 21))), f("/discovery/locations")),
		bad("facts: location without languages", with(body, del(f("/discovery/locations/0/languages"))), f("/discovery/locations/0"), "languages"),
		bad("facts: location no languages", with(body, set(f("/discovery/locations/0/languages"), "[]")), f("/discovery/locations/0/languages")),
		bad("facts: location 11 languages", with(body, set(f("/discovery/locations/0/languages"), strs(11))), f("/discovery/locations/0/languages")),
		bad("facts: location language of 61", with(body, set(f("/discovery/locations/0/languages/0"), str(61))), f("/discovery/locations/0/languages/0")),
		bad("facts: location id of 101", with(body, set(f("/discovery/locations/0/id"), str(101))), f("/discovery/locations/0/id")),
		bad("facts: location label empty", with(body, set(f("/discovery/locations/0/label"), `""`)), f("/discovery/locations/0/label")),
		bad("facts: location reviewUrl", with(body, set(f("/discovery/locations/0/reviewUrl"), `"reviews"`)), f("/discovery/locations/0/reviewUrl")),
		bad("facts: location unknown key", with(body, set(f("/discovery/locations/0/phone"), `"+15551230001"`)), f("/discovery/locations/0"), "phone"),
		bad("facts: primaryLocationId of 101", with(body, set(f("/discovery/primaryLocationId"), str(101))), f("/discovery/primaryLocationId")),
		bad("facts: 31 tools", with(body, set(f("/discovery/tools"), rep(`{"name": "t", "purpose": "crm",
		  "decision": "unknown", "executor": "unknown", "connectionRef": null}`, 31))), f("/discovery/tools")),
		bad("facts: tool executor", with(body, set(f("/discovery/tools/0/executor"), `"robot"`)), f("/discovery/tools/0/executor")),
		bad("facts: tool purpose", with(body, set(f("/discovery/tools/0/purpose"), `"sales"`)), f("/discovery/tools/0/purpose")),
		bad("facts: tool decision", with(body, set(f("/discovery/tools/0/decision"), `"drop"`)), f("/discovery/tools/0/decision")),
		bad("facts: tool connectionRef of 201", with(body, set(f("/discovery/tools/0/connectionRef"), str(201))), f("/discovery/tools/0/connectionRef")),
		bad("facts: tool without connectionRef", with(body, del(f("/discovery/tools/0/connectionRef"))), f("/discovery/tools/0"), "connectionRef"),
		bad("facts: tool name of 121", with(body, set(f("/discovery/tools/0/name"), str(121))), f("/discovery/tools/0/name")),
		bad("facts: 22 schedule slots", with(body, set(f("/intakeCoverage/schedule"), rep(`{"day": 1, "start": "08:00", "end": "09:00"}`, 22))), f("/intakeCoverage/schedule")),
		bad("facts: schedule day 7", with(body, set(f("/intakeCoverage/schedule/0/day"), "7")), f("/intakeCoverage/schedule/0/day")),
		bad("facts: schedule day 1.5", with(body, set(f("/intakeCoverage/schedule/0/day"), "1.5")), f("/intakeCoverage/schedule/0/day")),
		bad("facts: schedule start 24:00", with(body, set(f("/intakeCoverage/schedule/0/start"), `"24:00"`)), f("/intakeCoverage/schedule/0/start")),
		bad("facts: schedule start 8:00", with(body, set(f("/intakeCoverage/schedule/0/start"), `"8:00"`)), f("/intakeCoverage/schedule/0/start")),
		bad("facts: schedule end 08:60", with(body, set(f("/intakeCoverage/schedule/0/end"), `"08:60"`)), f("/intakeCoverage/schedule/0/end")),
		bad("facts: schedule end with seconds", with(body, set(f("/intakeCoverage/schedule/0/end"), `"08:00:00"`)), f("/intakeCoverage/schedule/0/end")),
		bad("facts: schedule slot unknown key", with(body, set(f("/intakeCoverage/schedule/0/tz"), `"UTC"`)), f("/intakeCoverage/schedule/0"), "tz"),
		bad("facts: afterHours empty", with(body, set(f("/intakeCoverage/afterHours"), `""`)), f("/intakeCoverage/afterHours")),
		bad("facts: afterHours of 1001", with(body, set(f("/intakeCoverage/afterHours"), str(1001))), f("/intakeCoverage/afterHours")),
		bad("facts: 21 qualification questions", with(body, set(f("/qualification"), rep(`{"question": "q", "instruction": "i"}`, 21))), f("/qualification")),
		bad("facts: qualification question of 301", with(body, set(f("/qualification/0/question"), str(301))), f("/qualification/0/question")),
		bad("facts: qualification instruction of 501", with(body, set(f("/qualification/0/instruction"), str(501))), f("/qualification/0/instruction")),
		bad("facts: routing kind", with(body, set(f("/routing/kind"), `"email"`)), f("/routing/kind")),
		bad("facts: routing destinationPhone", with(body, set(f("/routing/destinationPhone"), `"555-123-0002"`)), f("/routing/destinationPhone")),
		bad("facts: routing destination empty", with(body, set(f("/routing/destination"), `""`)), f("/routing/destination")),
		bad("facts: routing connectionRef of 201", with(body, set(f("/routing/connectionRef"), str(201))), f("/routing/connectionRef")),
		bad("facts: routing without instruction", with(body, del(f("/routing/instruction"))), f("/routing"), "instruction"),
		bad("facts: fallback mode", with(body, set(f("/fallback/mode"), `"voicemail"`)), f("/fallback/mode")),
		bad("facts: fallback phone", with(body, set(f("/fallback/phone"), `"+05551230002"`)), f("/fallback/phone")),
		bad("facts: fallback instruction of 1001", with(body, set(f("/fallback/instruction"), str(1001))), f("/fallback/instruction")),
		bad("facts: booking enabled string", with(body, set(f("/booking/enabled"), `"yes"`)), f("/booking/enabled")),
		bad("facts: booking unknown key", with(body, set(f("/booking/url"), `"https://x.example"`)), f("/booking"), "url"),
		bad("facts: 31 faqs", with(body, set(f("/faqs"), rep(`{"question": "q", "answer": "a"}`, 31))), f("/faqs")),
		bad("facts: faq answer of 1001", with(body, set(f("/faqs/0/answer"), str(1001))), f("/faqs/0/answer")),
		bad("facts: faq without answer", with(body, del(f("/faqs/0/answer"))), f("/faqs/0"), "answer"),
		bad("facts: 21 report recipients", with(body, set(f("/reporting/recipientUserIds"), uuids(21))), f("/reporting/recipientUserIds")),
		bad("facts: report recipient not a uuid", with(body, set(f("/reporting/recipientUserIds/0"), `"user-1"`)), f("/reporting/recipientUserIds/0")),
		bad("facts: report recipient twice", with(body, set(f("/reporting/recipientUserIds/1"), `"$U1"`)), f("/reporting/recipientUserIds")),
	}
}

func schemaCases() map[string][]tcase {
	cases := map[string][]tcase{
		"signupOtpRequest": {
			ok("full", signupReq),
			ok("minimal", `{"business_name": "A", "email": "a@b.example"}`),
			ok("every signup scope", with(signupReq, set("/api_key_scopes", `["workspaces:read","workspaces:write",
			  "numbers:read","numbers:write","agents:read","agents:write","communication-runs:read",
			  "communication-runs:write","calls:read","calls:write","sms:read","sms:write","webhooks:read",
			  "webhooks:write","events:read","events:replay","lifecycle:write","leads:read","leads:write",
			  "emails:read","emails:write","sdr:read","sdr:write","evals:read","evals:write","appointments:read",
			  "appointments:write","knowledge:read","knowledge:write","products:read","products:write",
			  "billing:read","billing:write","call_evidence:read","call_evidence:write","support:write"]`))),
			// Not declared, so additionalProperties: false refuses them (a false subschema would
			// say the same, but stops code generators).
			bad("challenge_id", with(signupReq, set("/challenge_id", `"c-1"`)), "", "'challenge_id' not allowed"),
			bad("otp_code", with(signupReq, set("/otp_code", `"123456"`)), "", "'otp_code' not allowed"),
			bad("unknown property", with(signupReq, set("/nickname", `"x"`)), "", "nickname"),
			bad("no email", with(signupReq, del("/email")), "", "email"),
			bad("no business_name", with(signupReq, del("/business_name")), "", "business_name"),
			bad("bad email", with(signupReq, set("/email", `"not-an-email"`)), "/email"),
			bad("empty business_name", with(signupReq, set("/business_name", `""`)), "/business_name"),
			bad("platform scope approvals:write", with(signupReq, set("/api_key_scopes", `["approvals:write"]`)), "/api_key_scopes/0"),
			bad("platform scope concierge:write", with(signupReq, set("/api_key_scopes/1", `"concierge:write"`)), "/api_key_scopes/1"),
			bad("wildcard scope", with(signupReq, set("/api_key_scopes", `["*"]`)), "/api_key_scopes/0"),
			bad("unknown scope", with(signupReq, set("/api_key_scopes", `["agents:admin"]`)), "/api_key_scopes/0"),
			bad("no scopes", with(signupReq, set("/api_key_scopes", `[]`)), "/api_key_scopes"),
			bad("duplicate scopes", with(signupReq, set("/api_key_scopes", `["agents:read","agents:read"]`)), "/api_key_scopes"),
			bad("activation_mode payment", with(signupReq, set("/activation_mode", `"payment"`)), "/activation_mode"),
			bad("attribution not an object", with(signupReq, set("/attribution", `"x"`)), "/attribution"),
		},
		"signupOtpVerify": {
			ok("full", with(signupReq, set("/challenge_id", `"ch_1"`), set("/otp_code", `"012345"`), set("/replay_token", `"rt"`))),
			ok("minimal", `{"business_name": "A", "email": "a@b.example", "challenge_id": "c", "otp_code": "999999"}`),
			bad("five digits", with(signupReq, set("/challenge_id", `"c"`), set("/otp_code", `"12345"`)), "/otp_code"),
			bad("seven digits", with(signupReq, set("/challenge_id", `"c"`), set("/otp_code", `"1234567"`)), "/otp_code"),
			bad("letter in code", with(signupReq, set("/challenge_id", `"c"`), set("/otp_code", `"12345a"`)), "/otp_code"),
			bad("code as number", with(signupReq, set("/challenge_id", `"c"`), set("/otp_code", `123456`)), "/otp_code"),
			bad("no challenge_id", with(signupReq, set("/otp_code", `"123456"`)), "", "challenge_id"),
			bad("no otp_code", with(signupReq, set("/challenge_id", `"c"`)), "", "otp_code"),
			bad("unknown property", with(signupReq, set("/challenge_id", `"c"`), set("/otp_code", `"123456"`), set("/code", `"1"`)), "", "code"),
			bad("platform scope", with(signupReq, set("/challenge_id", `"c"`), set("/otp_code", `"123456"`), set("/api_key_scopes", `["concierge:write"]`)), "/api_key_scopes/0"),
		},
		"signupPayment": {
			ok("full", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "payment", "plan_id": "starter",
			  "business_type": "x", "website": "w", "phone_forward_to": "+15551230002", "phone": "p", "referral_code": "r",
			  "via": "v", "attribution": {}, "how_heard": "h"}`),
			ok("minimal", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "payment"}`),
			bad("api_key_scopes", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "payment", "api_key_scopes": ["agents:read"]}`, "", "'api_key_scopes' not allowed"),
			bad("otp mode", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "otp"}`, "/activation_mode"),
			bad("no activation_mode", `{"business_name": "Acme", "email": "o@acme.example"}`, "", "activation_mode"),
			bad("challenge_id", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "payment", "challenge_id": "c"}`, "", "challenge_id"),
			bad("unknown property", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "payment", "card": "4242"}`, "", "card"),
			bad("empty plan_id", `{"business_name": "Acme", "email": "o@acme.example", "activation_mode": "payment", "plan_id": ""}`, "/plan_id"),
		},
		"agentCreate": {
			ok("full", agentCreateBody),
			ok("minimal", `{"business_id": "`+u1+`", "name": "A", "system_prompt": "P"}`),
			bad("no system_prompt", with(agentCreateBody, del("/system_prompt")), "", "system_prompt"),
			bad("business_id not a uuid", with(agentCreateBody, set("/business_id", `"biz-1"`)), "/business_id"),
			bad("temperature 2.5", with(agentCreateBody, set("/model/temperature", "2.5")), "/model/temperature"),
			bad("temperature negative", with(agentCreateBody, set("/model/temperature", "-0.1")), "/model/temperature"),
			bad("empty model", with(agentCreateBody, set("/model", "{}")), "/model"),
			bad("model unknown key", with(agentCreateBody, set("/model/top_p", "1")), "/model", "top_p"),
			bad("voice without voiceId", with(agentCreateBody, del("/voice/voiceId")), "/voice", "voiceId"),
			bad("voice unknown key", with(agentCreateBody, set("/voice/speed", "1")), "/voice", "speed"),
			bad("update-only field", with(agentCreateBody, set("/inbound_prompt", `"x"`)), "", "inbound_prompt"),
			bad("empty name", with(agentCreateBody, set("/name", `""`)), "/name"),
			bad("metadata not an object", with(agentCreateBody, set("/metadata", "[]")), "/metadata"),
		},
		"agentUpdate": {
			ok("full", agentUpdateBody),
			ok("id only", `{"id": "`+u1+`"}`),
			bad("no id", with(agentUpdateBody, del("/id")), "", "id"),
			bad("id not a uuid", with(agentUpdateBody, set("/id", `"abc"`)), "/id"),
			bad("max_duration 0", with(agentUpdateBody, set("/max_duration", "0")), "/max_duration"),
			bad("max_duration negative", with(agentUpdateBody, set("/max_duration", "-5")), "/max_duration"),
			bad("max_duration fractional", with(agentUpdateBody, set("/max_duration", "90.5")), "/max_duration"),
			bad("max_duration huge", with(agentUpdateBody, set("/max_duration", "1e20")), "/max_duration"),
			bad("max_duration 3601", with(agentUpdateBody, set("/max_duration", "3601")), "/max_duration"),
			ok("max_duration 3600", with(agentUpdateBody, set("/max_duration", "3600"))),
			bad("transfer number not E.164", with(agentUpdateBody, set("/transfer_phone_number", `"555-1234"`)), "/transfer_phone_number"),
			bad("vendor_config not an object", with(agentUpdateBody, set("/vendor_config", `"x"`)), "/vendor_config"),
			bad("transfer_enabled string", with(agentUpdateBody, set("/transfer_enabled", `"yes"`)), "/transfer_enabled"),
			bad("temperature 3", with(agentUpdateBody, set("/model/temperature", "3")), "/model/temperature"),
			bad("outbound_llm number", with(agentUpdateBody, set("/outbound_llm", "4")), "/outbound_llm"),
			bad("unknown property", with(agentUpdateBody, set("/prompt", `"x"`)), "", "prompt"),
		},
		"callCreate": {
			ok("full", callBody),
			ok("aliases", with(callBody, del("/name"), del("/firstMessage"), set("/customer_name", `"Jane"`), set("/first_message", `"Hi"`))),
			ok("minimal", `{"agent_id": "a-1", "to": "+442071234567"}`),
			ok("loopback webhook", with(callBody, set("/webhook_url", `"http://127.0.0.1:9000/hook"`))),
			ok("max_duration 3600", with(callBody, set("/max_duration", "3600"))),
			bad("to without plus", with(callBody, set("/to", `"15551230001"`)), "/to"),
			bad("to with leading zero", with(callBody, set("/to", `"+0155512300"`)), "/to"),
			bad("to with spaces", with(callBody, set("/to", `"+1 555 123 0001"`)), "/to"),
			bad("to of 16 digits", with(callBody, set("/to", `"+1234567890123456"`)), "/to"),
			bad("to of 1 digit", with(callBody, set("/to", `"+1"`)), "/to"),
			bad("max_duration 3601", with(callBody, set("/max_duration", "3601")), "/max_duration"),
			bad("max_duration 0", with(callBody, set("/max_duration", "0")), "/max_duration"),
			bad("max_duration fractional", with(callBody, set("/max_duration", "60.5")), "/max_duration"),
			bad("lead_id not a uuid", with(callBody, set("/lead_id", `"lead-1"`)), "/lead_id"),
			bad("webhook_url not a URL", with(callBody, set("/webhook_url", `"hooks"`)), "/webhook_url"),
			// Which schemes and hosts are called is the server's to say, in words (the mock's
			// hooks.CheckTarget), not a pattern's.
			ok("webhook_url ftp", with(callBody, set("/webhook_url", `"ftp://hooks.example/x"`))),
			bad("name and customer_name", with(callBody, set("/customer_name", `"J"`)), ""),
			bad("firstMessage and first_message", with(callBody, set("/first_message", `"J"`)), ""),
			bad("no to", with(callBody, del("/to")), "", "to"),
			bad("empty agent_id", with(callBody, set("/agent_id", `""`)), "/agent_id"),
			bad("unknown property", with(callBody, set("/from", `"+15551230009"`)), "", "from"),
		},
		"leadUpdate": {
			ok("fields", `{"id": "`+u1+`", "status": "qualified", "notes": "Called back", "email": "j@x.example",
			  "phone": "+15551230001", "name": "J", "first_name": "J", "last_name": "D", "source": "web",
			  "address": "1 Main", "city": "NYC", "state": "NY", "zip": "10001"}`),
			ok("quickstart status", `{"id": "`+u1+`", "status": "do_not_contact"}`),
			ok("clear with null", `{"id": "`+u1+`", "email": null, "notes": null, "zip": null, "phone": null}`),
			bad("status null", `{"id": "`+u1+`", "status": null}`, "/status"),
			bad("status won", `{"id": "`+u1+`", "status": "won"}`, "/status"),
			bad("no id", `{"status": "new"}`, "", "id"),
			bad("id null", `{"id": null}`, "/id"),
			bad("unknown property", `{"id": "`+u1+`", "score": 10}`, "", "score"),
			bad("bad email", `{"id": "`+u1+`", "email": "x"}`, "/email"),
			bad("bad phone", `{"id": "`+u1+`", "phone": "12"}`, "/phone"),
			bad("notes number", `{"id": "`+u1+`", "notes": 5}`, "/notes"),
		},
		"smsSend": {
			ok("full", `{"to": "+15551230001", "from_agent_id": "`+u1+`", "message": "Hello", "lead_id": "`+u2+`"}`),
			ok("1600 characters", `{"to": "+15551230001", "from_agent_id": "`+u1+`", "message": `+str(1600)+`}`),
			bad("empty message", `{"to": "+15551230001", "from_agent_id": "`+u1+`", "message": ""}`, "/message"),
			bad("1601 characters", `{"to": "+15551230001", "from_agent_id": "`+u1+`", "message": `+str(1601)+`}`, "/message"),
			bad("bad to", `{"to": "555", "from_agent_id": "`+u1+`", "message": "Hi"}`, "/to"),
			bad("no from_agent_id", `{"to": "+15551230001", "message": "Hi"}`, "", "from_agent_id"),
			bad("unknown property", `{"to": "+15551230001", "from_agent_id": "`+u1+`", "message": "Hi", "from": "x"}`, "", "from"),
		},
		"smsUpdatePrompt": {
			ok("full", `{"agent_id": "`+u1+`", "sms_prompt": "Be nice", "reason": "tone"}`),
			bad("no sms_prompt", `{"agent_id": "`+u1+`"}`, "", "sms_prompt"),
			bad("bad agent_id", `{"agent_id": "a", "sms_prompt": "x"}`, "/agent_id"),
			bad("empty sms_prompt", `{"agent_id": "`+u1+`", "sms_prompt": ""}`, "/sms_prompt"),
			bad("unknown property", `{"agent_id": "`+u1+`", "sms_prompt": "x", "prompt": "y"}`, "", "prompt"),
		},
		"keyCreate": {
			ok("business key", `{"name": "CI key", "business_id": "`+u1+`", "scopes": ["agents:read", "calls:write", "events:replay"]}`),
			ok("partner key", `{"name": "Partner", "partner_id": "`+u1+`", "user_id": "`+u2+`", "scopes": ["workspaces:read"]}`),
			ok("defaults", `{}`),
			bad("sdr scope", `{"scopes": ["sdr:read"]}`, "/scopes/0"),
			bad("support scope", `{"scopes": ["agents:read", "support:write"]}`, "/scopes/1"),
			bad("call_evidence scope", `{"scopes": ["call_evidence:write"]}`, "/scopes/0"),
			bad("approvals scope", `{"scopes": ["approvals:write"]}`, "/scopes/0"),
			bad("concierge scope", `{"scopes": ["concierge:write"]}`, "/scopes/0"),
			bad("wildcard", `{"scopes": ["*"]}`, "/scopes/0"),
			bad("duplicate scopes", `{"scopes": ["agents:read", "agents:read"]}`, "/scopes"),
			bad("no scopes", `{"scopes": []}`, "/scopes"),
			bad("business_id with partner_id", `{"business_id": "`+u1+`", "partner_id": "`+u2+`"}`, ""),
			bad("user_id without partner_id", `{"user_id": "`+u1+`"}`, "", "partner_id"),
			bad("name of 101", `{"name": `+str(101)+`}`, "/name"),
			bad("partner_id not a uuid", `{"partner_id": "p-1"}`, "/partner_id"),
			bad("unknown property", `{"expires_at": "2027-01-01T00:00:00Z"}`, "", "expires_at"),
		},
		"webhookUpsert": {
			ok("full", webhookBody),
			ok("minimal", `{"business_id": "`+u2+`", "webhook_url": "https://crm.example/hooks"}`),
			ok("nulls", with(webhookBody, set("/payload_template", "null"), set("/custom_headers", "null"), set("/description", `"CRM"`))),
			ok("every event", with(webhookBody, set("/events", `["lead.created","lead.scored","call.received","call.started",
			  "call.completed","call.failed","sms.received","sms.sent","sms.delivered","sms.failed","voicemail.received",
			  "dispatcher.briefing_created","dispatcher.handoff_dispatched","phone_number.assigned","phone_number.released",
			  "phone_number.purchased","workspace.paused","workspace.canceled","workspace.created",
			  "workspace.provisioning_failed","workspace.ready","workspace.teardown_completed","lead_email.sent",
			  "lead_email.failed","callback.scheduled","callback.completed","conversation.handoff"]`))),
			ok("every preset", with(webhookBody, set("/preset", `"gohighlevel"`))),
			ok("loopback receiver", with(webhookBody, set("/webhook_url", `"http://127.0.0.1:8081/hook"`))),
			ok("localhost receiver", with(webhookBody, set("/webhook_url", `"http://localhost:3000"`))),
			ok("100 template fields", with(webhookBody, set("/payload_template/fields", objN(100, `"data.id"`)))),
			ok("20 headers", with(webhookBody, set("/custom_headers", objN(20, `"v"`)))),
			ok("header value of 4096 with a tab and UTF-8", with(webhookBody, set("/custom_headers/X-N", `"a\tb é`+strings.Repeat("x", 4091)+`"`))),
			ok("header TE-Custom (not TE)", with(webhookBody, set("/custom_headers/TE-Custom", `"x"`))),
			ok("empty header maps", with(webhookBody, set("/custom_headers", "{}"), set("/payload_template/fields", "{}"))),
			bad("unknown event", with(webhookBody, set("/events/0", `"lead.deleted"`)), "/events/0"),
			bad("duplicate events", with(webhookBody, set("/events", `["call.failed", "call.failed"]`)), "/events"),
			bad("no events", with(webhookBody, set("/events", `[]`)), "/events"),
			bad("unknown preset", with(webhookBody, set("/preset", `"monday"`)), "/preset"),
			bad("GET", with(webhookBody, set("/http_method", `"GET"`)), "/http_method"),
			bad("lowercase post", with(webhookBody, set("/http_method", `"post"`)), "/http_method"),
			bad("xml", with(webhookBody, set("/body_format", `"xml"`)), "/body_format"),
			bad("101 template fields", with(webhookBody, set("/payload_template/fields", objN(101, `"data.id"`))), "/payload_template/fields"),
			bad("template field number", with(webhookBody, set("/payload_template/fields/x", "5")), "/payload_template/fields/x"),
			bad("template field empty path", with(webhookBody, set("/payload_template/fields/x", `""`)), "/payload_template/fields/x"),
			ok("template constants of every type", with(webhookBody, set("/payload_template/fields", `{"s": {"value": "x"}, "n": {"value": 1.5},
			  "i": {"value": 3}, "t": {"value": true}, "f": {"value": false}, "z": {"value": null}}`))),
			bad("template constant object", with(webhookBody, set("/payload_template/fields/x", `{"value": {}}`)), "/payload_template/fields/x/value"),
			bad("template constant array", with(webhookBody, set("/payload_template/fields/x", `{"value": [1]}`)), "/payload_template/fields/x/value"),
			bad("template constant extra key", with(webhookBody, set("/payload_template/fields/x", `{"value": 1, "path": "a"}`)), "/payload_template/fields/x"),
			bad("template constant no value", with(webhookBody, set("/payload_template/fields/x", `{}`)), "/payload_template/fields/x"),
			bad("template without fields", with(webhookBody, set("/payload_template", `{}`)), "/payload_template", "fields"),
			bad("template extra key", with(webhookBody, set("/payload_template/format", `"json"`)), "/payload_template"),
			bad("template string", with(webhookBody, set("/payload_template", `"x"`)), "/payload_template"),
			bad("21 headers", with(webhookBody, set("/custom_headers", objN(21, `"v"`))), "/custom_headers"),
			bad("header content-type", with(webhookBody, set("/custom_headers/content-type", `"text/plain"`)), "/custom_headers", "content-type"),
			bad("header Content-Type", with(webhookBody, set("/custom_headers/Content-Type", `"text/plain"`)), "/custom_headers", "Content-Type"),
			bad("header HOST", with(webhookBody, set("/custom_headers/HOST", `"x"`)), "/custom_headers", "HOST"),
			bad("header Content-Length", with(webhookBody, set("/custom_headers/Content-Length", `"1"`)), "/custom_headers", "Content-Length"),
			bad("header X-Voiceagent-Event", with(webhookBody, set("/custom_headers/X-Voiceagent-Event", `"x"`)), "/custom_headers", "X-Voiceagent-Event"),
			bad("header x-VOICEAGENT-anything", with(webhookBody, set("/custom_headers/x-VOICEAGENT-anything", `"x"`)), "/custom_headers", "x-VOICEAGENT-anything"),
			bad("header Webhook-Signature", with(webhookBody, set("/custom_headers/Webhook-Signature", `"x"`)), "/custom_headers", "Webhook-Signature"),
			bad("header webhook-id", with(webhookBody, set("/custom_headers/webhook-id", `"x"`)), "/custom_headers", "webhook-id"),
			bad("header name with space", with(webhookBody, set("/custom_headers/Bad Header", `"x"`)), "/custom_headers", "Bad Header"),
			bad("header value number", with(webhookBody, set("/custom_headers/X-N", "5")), "/custom_headers/X-N"),
			bad("header value with newline", with(webhookBody, set("/custom_headers/X-N", `"a\r\nHost: evil"`)), "/custom_headers/X-N"),
			bad("header Transfer-Encoding", with(webhookBody, set("/custom_headers/Transfer-Encoding", `"chunked"`)), "/custom_headers", "Transfer-Encoding"),
			bad("header te", with(webhookBody, set("/custom_headers/te", `"trailers"`)), "/custom_headers", "te"),
			bad("header Connection", with(webhookBody, set("/custom_headers/Connection", `"close"`)), "/custom_headers", "Connection"),
			bad("header Keep-Alive", with(webhookBody, set("/custom_headers/Keep-Alive", `"timeout=5"`)), "/custom_headers", "Keep-Alive"),
			bad("header Proxy-Connection", with(webhookBody, set("/custom_headers/Proxy-Connection", `"close"`)), "/custom_headers", "Proxy-Connection"),
			bad("header Trailer", with(webhookBody, set("/custom_headers/Trailer", `"X-Sum"`)), "/custom_headers", "Trailer"),
			bad("header UPGRADE", with(webhookBody, set("/custom_headers/UPGRADE", `"websocket"`)), "/custom_headers", "UPGRADE"),
			bad("header Content-Encoding", with(webhookBody, set("/custom_headers/Content-Encoding", `"gzip"`)), "/custom_headers", "Content-Encoding"),
			bad("header Expect", with(webhookBody, set("/custom_headers/Expect", `"100-continue"`)), "/custom_headers", "Expect"),
			bad("header value with NUL", with(webhookBody, set("/custom_headers/X-N", `"a\u0000b"`)), "/custom_headers/X-N"),
			bad("header value with VT", with(webhookBody, set("/custom_headers/X-N", `"a\u000bb"`)), "/custom_headers/X-N"),
			bad("header value with DEL", with(webhookBody, set("/custom_headers/X-N", `"a\u007fb"`)), "/custom_headers/X-N"),
			bad("header value of 4097", with(webhookBody, set("/custom_headers/X-N", str(4097))), "/custom_headers/X-N"),
			bad("custom_headers array", with(webhookBody, set("/custom_headers", `[]`)), "/custom_headers"),
			// Which schemes and hosts are allowed is the server's to say, in words (the mock's
			// hooks.CheckReceiver, and -allow-external-webhooks), not a pattern's.
			ok("http receiver", with(webhookBody, set("/webhook_url", `"http://crm.example/hooks"`))),
			ok("docker compose receiver", with(webhookBody, set("/webhook_url", `"http://receiver:3000/hook"`))),
			bad("not a URL", with(webhookBody, set("/webhook_url", `"crm.example/hooks"`)), "/webhook_url"),
			bad("no business_id", with(webhookBody, del("/business_id")), "", "business_id"),
			bad("no webhook_url", with(webhookBody, del("/webhook_url")), "", "webhook_url"),
			bad("unknown property", with(webhookBody, set("/secret", `"whsec_x"`)), "", "secret"),
			bad("description number", with(webhookBody, set("/description", "5")), "/description"),
			bad("is_active string", with(webhookBody, set("/is_active", `"true"`)), "/is_active"),
			bad("id not a uuid", with(webhookBody, set("/id", `"wh_1"`)), "/id"),
		},
		"webhookRotateSecret": {
			ok("with grace", `{"id": "`+u1+`", "grace_period_seconds": 604800}`),
			ok("immediate", `{"id": "`+u1+`", "grace_period_seconds": 0}`),
			ok("id only", `{"id": "`+u1+`"}`),
			bad("grace too long", `{"id": "`+u1+`", "grace_period_seconds": 604801}`, "/grace_period_seconds"),
			bad("negative grace", `{"id": "`+u1+`", "grace_period_seconds": -1}`, "/grace_period_seconds"),
			bad("fractional grace", `{"id": "`+u1+`", "grace_period_seconds": 1.5}`, "/grace_period_seconds"),
			bad("no id", `{"grace_period_seconds": 10}`, "", "id"),
			bad("unknown property", `{"id": "`+u1+`", "secret": "x"}`, "", "secret"),
		},
		"eventsReplay": {
			ok("by ids", `{"event_ids": ["`+u1+`", "`+u2+`"], "business_id": "`+u1+`"}`),
			ok("100 ids", `{"event_ids": `+uuids(100)+`}`),
			ok("by time", `{"since": "2026-06-01T00:00:00Z", "until": "2026-06-02T00:00:00Z", "types": ["call.completed"], "business_id": "`+u1+`"}`),
			ok("since only", `{"since": "2026-06-01T00:00:00.123+02:00"}`),
			bad("empty", `{}`, ""),
			bad("ids and since", `{"event_ids": ["`+u1+`"], "since": "2026-06-01T00:00:00Z"}`, ""),
			bad("no ids", `{"event_ids": []}`, "/event_ids"),
			bad("101 ids", `{"event_ids": `+uuids(101)+`}`, "/event_ids"),
			bad("duplicate ids", `{"event_ids": ["`+u1+`", "`+u1+`"]}`, "/event_ids"),
			bad("id not a uuid", `{"event_ids": ["evt_1"]}`, "/event_ids/0"),
			bad("since not a timestamp", `{"since": "yesterday"}`, "/since"),
			bad("since date only", `{"since": "2026-06-01"}`, "/since"),
			bad("until without since", `{"event_ids": ["`+u1+`"], "until": "2026-06-02T00:00:00Z"}`, "", "since"),
			bad("unknown type", `{"since": "2026-06-01T00:00:00Z", "types": ["call.ringing"]}`, "/types/0"),
			bad("unknown property", `{"since": "2026-06-01T00:00:00Z", "limit": 5}`, "", "limit"),
		},
		"productUpsert": {
			ok("create", `{"business_id": "`+u1+`", "name": "Drain cleaning", "description": "d", "category": "c",
			  "price": 149.5, "sku": "DC-1", "attributes": {"duration": "1h"}, "quantity": 3}`),
			ok("update", `{"id": "`+u2+`", "price": 0}`),
			bad("create without name", `{"business_id": "`+u1+`"}`, "", "name"),
			bad("create without business_id", `{"name": "x"}`, "", "business_id"),
			bad("empty name", `{"business_id": "`+u1+`", "name": ""}`, "/name"),
			bad("negative price", `{"business_id": "`+u1+`", "name": "x", "price": -1}`, "/price"),
			bad("price string", `{"business_id": "`+u1+`", "name": "x", "price": "10"}`, "/price"),
			bad("negative quantity", `{"id": "`+u2+`", "quantity": -1}`, "/quantity"),
			bad("id not a uuid", `{"id": "p-1"}`, "/id"),
			bad("unknown property", `{"id": "`+u2+`", "stock": 1}`, "", "stock"),
		},
		"knowledgeUpsert": {
			ok("create", `{"business_id": "`+u1+`", "title": "Hours", "content": "Mon-Fri", "content_type": "faq",
			  "category": null, "tags": ["hours"]}`),
			ok("update", `{"business_id": "`+u1+`", "id": "`+u2+`", "content": "new", "tags": null, "category": "c"}`),
			bad("create without content_type", `{"business_id": "`+u1+`", "title": "t", "content": "c"}`, "", "content_type"),
			bad("update without business_id", `{"id": "`+u2+`", "content": "c"}`, "", "business_id"),
			bad("empty title", `{"business_id": "`+u1+`", "id": "`+u2+`", "title": ""}`, "/title"),
			bad("tags of numbers", `{"business_id": "`+u1+`", "id": "`+u2+`", "tags": [1]}`, "/tags/0"),
			bad("unknown property", `{"business_id": "`+u1+`", "id": "`+u2+`", "body": "x"}`, "", "body"),
		},
		"communicationRunCreate": {
			ok("full", runBody),
			ok("minimal", `{"business_id": "`+u1+`", "external_ref": "r", "touches": [{"touch_id": "t", "channel": "sms",
			  "target": {"phone": "+15551230001"}, "scheduled_at": "2026-06-05T15:00:00Z"}]}`),
			bad("no touches", with(runBody, set("/touches", "[]")), "/touches"),
			bad("touches missing", with(runBody, del("/touches")), "", "touches"),
			bad("email channel", with(runBody, set("/touches/0/channel", `"email"`)), "/touches/0/channel"),
			bad("target without phone", with(runBody, del("/touches/0/target/phone")), "/touches/0/target", "phone"),
			bad("target empty phone", with(runBody, set("/touches/0/target/phone", `""`)), "/touches/0/target/phone"),
			bad("target unknown key", with(runBody, set("/touches/0/target/company", `"x"`)), "/touches/0/target", "company"),
			bad("target bad email", with(runBody, set("/touches/0/target/email", `"jane"`)), "/touches/0/target/email"),
			bad("target lead_id not a uuid", with(runBody, set("/touches/0/target/lead_id", `"l"`)), "/touches/0/target/lead_id"),
			bad("touch unknown key", with(runBody, set("/touches/1/priority", "1")), "/touches/1", "priority"),
			bad("touch without scheduled_at", with(runBody, del("/touches/0/scheduled_at")), "/touches/0", "scheduled_at"),
			bad("touch without touch_id", with(runBody, del("/touches/1/touch_id")), "/touches/1", "touch_id"),
			bad("bad scheduled_at", with(runBody, set("/touches/0/scheduled_at", `"tomorrow"`)), "/touches/0/scheduled_at"),
			bad("timing window unknown key", with(runBody, set("/touches/0/timing_window/tz", `"UTC"`)), "/touches/0/timing_window", "tz"),
			bad("timing window bad time", with(runBody, set("/touches/0/timing_window/not_before", `"9am"`)), "/touches/0/timing_window/not_before"),
			bad("empty external_ref", with(runBody, set("/external_ref", `""`)), "/external_ref"),
			bad("agent_id not a uuid", with(runBody, set("/agent_id", `"a"`)), "/agent_id"),
			bad("unknown property", with(runBody, set("/name", `"x"`)), "", "name"),
		},
		"governedUpdateRequest": {
			ok("full with extra property", governedBody),
			ok("dry run without key", `{"intent": "transcripts.sink.configure", "dry_run": true,
			  "payload": {"url": "https://sink.example/t", "format": "text", "enabled": false}}`),
			ok("sink on a loopback receiver", `{"intent": "transcripts.sink.configure", "idempotency_key": "k",
			  "payload": {"url": "http://127.0.0.1:8080/t"}}`),
			ok("emergency address", `{"intent": "phone.emergency_address.set", "idempotency_key": "k",
			  "target": {"phone_number": "+15551230009"}, "payload": {"street": "1 Main St", "city": "Springfield",
			  "state": "IL", "postal_code": "62701", "country": "US", "name": "Acme", "street2": "Suite 2"}}`),
			bad("emergency address without target", `{"intent": "phone.emergency_address.set", "idempotency_key": "k",
			  "payload": {"street": "1 Main St", "city": "S", "state": "IL", "postal_code": "6", "country": "US"}}`, "", "target"),
			bad("emergency address target empty", `{"intent": "phone.emergency_address.set", "idempotency_key": "k",
			  "target": {}, "payload": {"street": "1 Main St", "city": "S", "state": "IL", "postal_code": "6", "country": "US"}}`, "/target"),
			bad("emergency address without city", `{"intent": "phone.emergency_address.set", "idempotency_key": "k",
			  "target": {"number_id": "$U1"}, "payload": {"street": "1 Main St", "state": "IL", "postal_code": "6", "country": "US"}}`, "/payload", "city"),
			bad("emergency address lower-case country", `{"intent": "phone.emergency_address.set", "idempotency_key": "k",
			  "target": {"number_id": "$U1"}, "payload": {"street": "1 Main St", "city": "S", "state": "IL", "postal_code": "6", "country": "us"}}`, "/payload/country"),
			bad("sink without url", `{"intent": "transcripts.sink.configure", "idempotency_key": "k", "payload": {"enabled": true}}`, "/payload", "url"),
			bad("sink on plain http", `{"intent": "transcripts.sink.configure", "idempotency_key": "k", "payload": {"url": "http://sink.example/t"}}`, "/payload/url"),
			bad("sink format", `{"intent": "transcripts.sink.configure", "idempotency_key": "k", "payload": {"url": "https://s.example", "format": "xml"}}`, "/payload/format"),
			bad("agent.patch without target", with(governedBody, del("/target")), "", "target"),
			bad("agent.patch target without agent_id", with(governedBody, set("/target", `{"id": "$U2"}`)), "/target"),
			bad("agent.patch empty payload", with(governedBody, set("/payload", `{}`)), "/payload"),
			bad("unknown intent", with(governedBody, set("/intent", `"agent.delete"`)), "/intent"),
			bad("no intent", with(governedBody, del("/intent")), "", "intent"),
			bad("mutating without key", `{"intent": "agent.patch"}`, "", "idempotency_key"),
			bad("dry_run false without key", `{"intent": "agent.patch", "dry_run": false}`, "", "idempotency_key"),
			bad("empty key", with(governedBody, set("/idempotency_key", `""`)), "/idempotency_key"),
			bad("actor type", with(governedBody, set("/actor/type", `"robot"`)), "/actor/type"),
			bad("actor unknown key", with(governedBody, set("/actor/email", `"x"`)), "/actor", "email"),
			bad("actor without type", with(governedBody, del("/actor/type")), "/actor", "type"),
			bad("authority mode", with(governedBody, set("/authority/mode", `"yolo"`)), "/authority/mode"),
			bad("authority confirmed_at", with(governedBody, set("/authority/confirmed_at", `"now"`)), "/authority/confirmed_at"),
			bad("authority unknown key", with(governedBody, set("/authority/level", "1")), "/authority", "level"),
			bad("target not an object", with(governedBody, set("/target", `"x"`)), "/target"),
			bad("business_id not a uuid", with(governedBody, set("/business_id", `"b"`)), "/business_id"),
		},
		"approvalChannelRequest": {
			ok("full", approvalBody),
			ok("minimal", with(approvalBody, del("/source_intent_id"), del("/message_id"), del("/responds_to_hash"),
				del("/required_factors"), del("/callback_secret_id"), set("/channel/type", `"sms"`))),
			bad("uppercase source", with(approvalBody, set("/source", `"Billing"`)), "/source"),
			bad("source starting with dash", with(approvalBody, set("/source", `"-billing"`)), "/source"),
			bad("source with dot", with(approvalBody, set("/source", `"billing.guard"`)), "/source"),
			bad("hash uppercase", with(approvalBody, set("/responds_to_hash", `"sha256:`+strings.ToUpper(hex)+`"`)), "/responds_to_hash"),
			bad("hash without prefix", with(approvalBody, set("/responds_to_hash", `"$HEX"`)), "/responds_to_hash"),
			bad("hash md5", with(approvalBody, set("/responds_to_hash", `"md5:0123456789abcdef0123456789abcdef"`)), "/responds_to_hash"),
			bad("channel type email", with(approvalBody, set("/channel/type", `"email"`)), "/channel/type"),
			bad("channel address", with(approvalBody, set("/channel/address", `"555-0100"`)), "/channel/address"),
			bad("channel unknown key", with(approvalBody, set("/channel/language", `"en"`)), "/channel", "language"),
			bad("summary of 2001", with(approvalBody, set("/summary", str(2001))), "/summary"),
			bad("risk level", with(approvalBody, set("/risk_level", `"extreme"`)), "/risk_level"),
			ok("http callback (the server decides)", with(approvalBody, set("/callback_url", `"http://control.example/cb"`))),
			bad("callback not a URL", with(approvalBody, set("/callback_url", `"control.example/cb"`)), "/callback_url"),
			ok("loopback http callback", with(approvalBody, set("/callback_url", `"http://127.0.0.1:9000/cb"`))),
			bad("no expires_at", with(approvalBody, del("/expires_at")), "", "expires_at"),
			bad("no principal_id", with(approvalBody, del("/principal_id")), "", "principal_id"),
			bad("unknown property", with(approvalBody, set("/priority", `"high"`)), "", "priority"),
		},
		"governedUpdateDecision": {
			ok("approve", `{"id": "$U1", "decision": "approve", "note": "fine"}`),
			ok("reject", `{"id": "$U1", "decision": "reject"}`),
			bad("no decision", `{"id": "$U1"}`, "", "decision"),
			bad("other decision", `{"id": "$U1", "decision": "maybe"}`, "/decision"),
			bad("id not a uuid", `{"id": "g-1", "decision": "approve"}`, "/id"),
			bad("unknown property", `{"id": "$U1", "decision": "approve", "by": "me"}`, "", "by"),
		},
		"agentPersonaLoad": {
			ok("full", personaBody),
			ok("minimal", `{"agent_id": "`+u1+`", "persona": {"lead_name": "Sam", "scenario": "s", "persona_traits": "calm"}}`),
			bad("persona without scenario", with(personaBody, del("/persona/scenario")), "/persona", "scenario"),
			bad("empty lead_name", with(personaBody, set("/persona/lead_name", `""`)), "/persona/lead_name"),
			bad("persona unknown key", with(personaBody, set("/persona/age", "40")), "/persona", "age"),
			bad("facts_to_reveal string", with(personaBody, set("/persona/facts_to_reveal", `"address"`)), "/persona/facts_to_reveal"),
			bad("no agent_id", with(personaBody, del("/agent_id")), "", "agent_id"),
			bad("no persona", with(personaBody, del("/persona")), "", "persona"),
			bad("unknown property", with(personaBody, set("/scenario", `"x"`)), "", "scenario"),
		},
		"sdrAction": {
			ok("pause", `{"businessId": "`+u1+`", "leadId": "`+u2+`", "action": "pause"}`),
			ok("email", `{"businessId": "`+u1+`", "leadId": "`+u2+`", "action": "email"}`),
			bad("action text", `{"businessId": "`+u1+`", "leadId": "`+u2+`", "action": "text"}`, "/action"),
			bad("no leadId", `{"businessId": "`+u1+`", "action": "call"}`, "", "leadId"),
			bad("businessId not a uuid", `{"businessId": "b", "leadId": "`+u2+`", "action": "call"}`, "/businessId"),
			bad("unknown property", `{"businessId": "`+u1+`", "leadId": "`+u2+`", "action": "call", "force": true}`, "", "force"),
		},
		"sdrConfigUpsert": {
			ok("full", sdrConfigBody),
			ok("businessId only", `{"businessId": "`+u1+`"}`),
			bad("hour 24", with(sdrConfigBody, set("/business_hours_end", "24")), "/business_hours_end"),
			bad("hour -1", with(sdrConfigBody, set("/business_hours_start", "-1")), "/business_hours_start"),
			bad("hour 8.5", with(sdrConfigBody, set("/business_hours_start", "8.5")), "/business_hours_start"),
			bad("max_touches 0", with(sdrConfigBody, set("/max_touches", "0")), "/max_touches"),
			bad("negative gap", with(sdrConfigBody, set("/min_touch_gap_hours", "-1")), "/min_touch_gap_hours"),
			bad("gap over a year", with(sdrConfigBody, set("/min_touch_gap_hours", "8761")), "/min_touch_gap_hours"),
			bad("max_touches 1001", with(sdrConfigBody, set("/max_touches", "1001")), "/max_touches"),
			bad("enabled string", with(sdrConfigBody, set("/enabled", `"yes"`)), "/enabled"),
			bad("no businessId", with(sdrConfigBody, del("/businessId")), "", "businessId"),
			bad("unknown property", with(sdrConfigBody, set("/timezone", `"UTC"`)), "", "timezone"),
		},
		"sdrRun": {
			ok("dry run", `{"businessId": "`+u1+`", "dryRun": true}`),
			ok("businessId only", `{"businessId": "`+u1+`"}`),
			bad("no businessId", `{"dryRun": true}`, "", "businessId"),
			bad("dryRun string", `{"businessId": "`+u1+`", "dryRun": "true"}`, "/dryRun"),
			bad("unknown property", `{"businessId": "`+u1+`", "dry_run": true}`, "", "dry_run"),
		},
		"agencyProfileCommand": {
			ok("bootstrap", bootstrapBody),
			ok("bootstrap minimal", `{"action": "bootstrap", "brand": {"name": "A"}, "support": {"email": "a@b.example", "ownerName": "O", "coverage": "c"}}`),
			ok("update", profileUpdateBody),
			ok("invite", `{"action": "invite", "partnerId": "`+u1+`", "email": "op@acme.example", "role": "operator"}`),
			ok("accept_invite", `{"action": "accept_invite", "partnerId": "`+u1+`", "token": `+str(200)+`}`),
			ok("revoke_invite", `{"action": "revoke_invite", "partnerId": "`+u1+`", "inviteId": "`+u2+`"}`),
			ok("assign", `{"action": "assign", "partnerId": "`+u1+`", "userId": "`+u2+`", "businessId": "`+u1+`", "businessRole": "member"}`),
			ok("unassign", `{"action": "unassign", "partnerId": "`+u1+`", "userId": "`+u2+`", "businessId": "`+u1+`"}`),
			ok("revoke_member", `{"action": "revoke_member", "partnerId": "`+u1+`", "userId": "`+u2+`"}`),
			ok("issue_key", `{"action": "issue_key", "partnerId": "`+u1+`", "name": "Integration", "scopes": `+strs(25)+`}`),
			bad("unknown action", `{"action": "delete", "partnerId": "`+u1+`"}`, "/action"),
			bad("no action", `{"brand": {"name": "A"}}`, "", "action"),
			bad("brand name empty", with(bootstrapBody, set("/brand/name", `""`)), "/brand/name"),
			bad("brand name of 121", with(bootstrapBody, set("/brand/name", str(121))), "/brand/name"),
			bad("logoUrl not a URI", with(bootstrapBody, set("/brand/logoUrl", `"logo.png"`)), "/brand/logoUrl"),
			bad("logoUrl of 1001", with(bootstrapBody, set("/brand/logoUrl", `"https://x.example/`+strings.Repeat("a", 983)+`"`)), "/brand/logoUrl"),
			bad("brand unknown key", with(bootstrapBody, set("/brand/color", `"red"`)), "/brand", "color"),
			bad("support email", with(bootstrapBody, set("/support/email", `"help"`)), "/support/email"),
			bad("support email of 255", with(bootstrapBody, set("/support/email", `"`+strings.Repeat("a", 60)+`@`+strings.Repeat("b", 190)+`.com"`)), "/support/email"),
			bad("coverage of 501", with(bootstrapBody, set("/support/coverage", str(501))), "/support/coverage"),
			bad("support without ownerName", with(bootstrapBody, del("/support/ownerName")), "/support", "ownerName"),
			bad("support unknown key", with(bootstrapBody, set("/support/phone", `"+15551230001"`)), "/support", "phone"),
			bad("bootstrap with partnerId", with(bootstrapBody, set("/partnerId", `"$U1"`)), "", "partnerId"),
			bad("update without expectedRevision", with(profileUpdateBody, del("/expectedRevision")), "", "expectedRevision"),
			bad("update revision not a uuid", with(profileUpdateBody, set("/expectedRevision", `"$HEX"`)), "/expectedRevision"),
			bad("update commercialMode", with(profileUpdateBody, set("/commercialMode", `"free"`)), "/commercialMode"),
			bad("invite role owner", `{"action": "invite", "partnerId": "`+u1+`", "email": "op@acme.example", "role": "owner"}`, "/role"),
			bad("invite email of 255", `{"action": "invite", "partnerId": "`+u1+`", "email": "`+strings.Repeat("a", 60)+`@`+strings.Repeat("b", 190)+`.com", "role": "reader"}`, "/email"),
			bad("accept_invite empty token", `{"action": "accept_invite", "partnerId": "`+u1+`", "token": ""}`, "/token"),
			bad("accept_invite token of 201", `{"action": "accept_invite", "partnerId": "`+u1+`", "token": `+str(201)+`}`, "/token"),
			bad("assign businessRole owner", `{"action": "assign", "partnerId": "`+u1+`", "userId": "`+u2+`", "businessId": "`+u1+`", "businessRole": "owner"}`, "/businessRole"),
			bad("revoke_invite inviteId", `{"action": "revoke_invite", "partnerId": "`+u1+`", "inviteId": "inv-1"}`, "/inviteId"),
			bad("issue_key no scopes", `{"action": "issue_key", "partnerId": "`+u1+`", "name": "k", "scopes": []}`, "/scopes"),
			bad("issue_key 26 scopes", `{"action": "issue_key", "partnerId": "`+u1+`", "name": "k", "scopes": `+strs(26)+`}`, "/scopes"),
			bad("issue_key scope of 81", `{"action": "issue_key", "partnerId": "`+u1+`", "name": "k", "scopes": [`+str(81)+`]}`, "/scopes/0"),
			bad("issue_key name of 101", `{"action": "issue_key", "partnerId": "`+u1+`", "name": `+str(101)+`, "scopes": ["a"]}`, "/name"),
			bad("revoke_member unknown key", `{"action": "revoke_member", "partnerId": "`+u1+`", "userId": "`+u2+`", "reason": "x"}`, "", "reason"),
		},
		"agencyOfferCommand": {
			ok("save", offerSave),
			ok("save existing", with(offerSave, set("/offerId", `"$U2"`), set("/expectedRevision", `"$U1"`))),
			ok("save maxima", with(offerSave, set("/draft/retail/monthlyCents", "100000000"), set("/draft/name", str(160)),
				set("/draft/supportedClaims", `["approved_intake_setup","owner_approved_campaign_drafts","recorded_activity_reporting"]`))),
			ok("preview", `{"action": "preview", "partnerId": "`+u1+`", "offerId": "`+u2+`"}`),
			ok("publish", offerPublish),
			ok("archive", `{"action": "archive", "partnerId": "`+u1+`", "offerId": "`+u2+`", "expectedRevision": "`+u1+`"}`),
			bad("monthlyCents too high", with(offerSave, set("/draft/retail/monthlyCents", "100000001")), "/draft/retail/monthlyCents"),
			bad("monthlyCents negative", with(offerSave, set("/draft/retail/monthlyCents", "-1")), "/draft/retail/monthlyCents"),
			bad("monthlyCents fractional", with(offerSave, set("/draft/retail/monthlyCents", "10.5")), "/draft/retail/monthlyCents"),
			bad("currency EUR", with(offerSave, set("/draft/retail/currency", `"EUR"`)), "/draft/retail/currency"),
			bad("collection", with(offerSave, set("/draft/retail/collection", `"platform"`)), "/draft/retail/collection"),
			bad("retail scope empty", with(offerSave, set("/draft/retail/scope", `""`)), "/draft/retail/scope"),
			bad("no packages", with(offerSave, set("/draft/packages", "[]")), "/draft/packages"),
			bad("4 packages", with(offerSave, set("/draft/packages/3", `{"key": "care", "version": "1", "variant": "v"}`)), "/draft/packages"),
			bad("package key", with(offerSave, set("/draft/packages/0/key", `"grow"`)), "/draft/packages/0/key"),
			bad("package version of 81", with(offerSave, set("/draft/packages/0/version", str(81))), "/draft/packages/0/version"),
			bad("package unknown key", with(offerSave, set("/draft/packages/0/price", "1")), "/draft/packages/0", "price"),
			bad("no claims", with(offerSave, set("/draft/supportedClaims", "[]")), "/draft/supportedClaims"),
			bad("duplicate claims", with(offerSave, set("/draft/supportedClaims", `["approved_intake_setup","approved_intake_setup"]`)), "/draft/supportedClaims"),
			bad("unknown claim", with(offerSave, set("/draft/supportedClaims/0", `"guaranteed_results"`)), "/draft/supportedClaims/0"),
			bad("branding not acknowledged", with(offerSave, set("/draft/brandingLimitationsAcknowledged", "false")), "/draft/brandingLimitationsAcknowledged"),
			bad("draft without supportPolicy", with(offerSave, del("/draft/supportPolicy")), "/draft", "supportPolicy"),
			bad("supportPolicy of 2001", with(offerSave, set("/draft/supportPolicy", str(2001))), "/draft/supportPolicy"),
			bad("draft unknown key", with(offerSave, set("/draft/tagline", `"x"`)), "/draft", "tagline"),
			bad("industry", with(offerSave, set("/draft/industry", `"retail"`)), "/draft/industry"),
			bad("name of 161", with(offerSave, set("/draft/name", str(161))), "/draft/name"),
			bad("save without draft", with(offerSave, del("/draft")), "", "draft"),
			bad("publish fingerprint uppercase", with(offerPublish, set("/fingerprint", `"`+strings.ToUpper(hex)+`"`)), "/fingerprint"),
			bad("publish fingerprint of 63", with(offerPublish, set("/fingerprint", `"`+hex[:63]+`"`)), "/fingerprint"),
			bad("publish without fingerprint", with(offerPublish, del("/fingerprint")), "", "fingerprint"),
			bad("archive revision not a uuid", `{"action": "archive", "partnerId": "`+u1+`", "offerId": "`+u2+`", "expectedRevision": "`+hex+`"}`, "/expectedRevision"),
			bad("preview unknown key", `{"action": "preview", "partnerId": "`+u1+`", "offerId": "`+u2+`", "draft": {}}`, "", "draft"),
		},
		"agencyEnrollmentCommand": {
			ok("start_self_service", selfService),
			ok("finish_self_service", `{"action": "finish_self_service", "partnerId": "`+u1+`", "sessionId": "`+u2+`"}`),
			ok("owner_save", `{"action": "owner_save", "partnerId": "`+u1+`", "sessionId": "`+u2+`", "expectedRevision": "`+u1+`", "facts": `+minimalFacts+`}`),
			ok("create", enrollCreate),
			ok("create 50 entries", with(enrollCreate, set("/entries", rep(`{"businessId": "$U2", "expectedRevision": null, "facts": `+minimalFacts+`}`, 50)))),
			ok("save", `{"action": "save", "partnerId": "`+u1+`", "sessionId": "`+u2+`", "expectedRevision": "`+u1+`",
			  "entries": [{"businessId": "`+u2+`", "expectedRevision": null, "facts": `+minimalFacts+`}]}`),
			ok("preview", `{"action": "preview", "partnerId": "`+u1+`", "sessionId": "`+u2+`"}`),
			ok("enroll", enrollEnroll),
			ok("enroll 150 approvals", with(enrollEnroll, set("/approvalIds", uuids(150)))),
			ok("enroll no approvals", with(enrollEnroll, set("/approvalIds", "[]"))),
			ok("claim_owner", `{"action": "claim_owner", "partnerId": "`+u1+`", "sessionId": "`+u2+`", "token": "tok"}`),
			ok("approve_owner", `{"action": "approve_owner", "partnerId": "`+u1+`", "sessionId": "`+u2+`", "expectedRevision": "`+u1+`", "fingerprint": "`+hex+`"}`),
			ok("rotate_owner_link", `{"action": "rotate_owner_link", "partnerId": "`+u1+`", "sessionId": "`+u2+`", "expectedRevision": "`+u1+`"}`),
			ok("revoke", `{"action": "revoke", "partnerId": "`+u1+`", "sessionId": "`+u2+`"}`),
			bad("unknown action", `{"action": "commit", "partnerId": "`+u1+`"}`, "/action"),
			bad("start_self_service name of 201", with(selfService, set("/name", str(201))), "/name"),
			bad("start_self_service with partnerId", with(selfService, set("/partnerId", `"$U1"`)), "", "partnerId"),
			bad("start_self_service without facts", with(selfService, del("/facts")), "", "facts"),
			bad("create no entries", with(enrollCreate, set("/entries", "[]")), "/entries"),
			bad("create 51 entries", with(enrollCreate, set("/entries", rep(`{"businessId": "$U2", "expectedRevision": null, "facts": `+minimalFacts+`}`, 51))), "/entries"),
			bad("entry with businessId and newClient", with(enrollCreate, set("/entries/0/newClient", `{"name": "n", "externalRef": "e"}`)), "/entries/0"),
			bad("entry with neither", with(enrollCreate, del("/entries/0/businessId")), "/entries/0"),
			bad("entry without expectedRevision", with(enrollCreate, del("/entries/0/expectedRevision")), "/entries/0", "expectedRevision"),
			bad("entry revision uuid", with(enrollCreate, set("/entries/0/expectedRevision", `"$U1"`)), "/entries/0/expectedRevision"),
			bad("entry without facts", with(enrollCreate, del("/entries/1/facts")), "/entries/1", "facts"),
			bad("entry unknown key", with(enrollCreate, set("/entries/0/notes", `"x"`)), "/entries/0", "notes"),
			bad("newClient externalRef of 151", with(enrollCreate, set("/entries/1/newClient/externalRef", str(151))), "/entries/1/newClient/externalRef"),
			bad("newClient name empty", with(enrollCreate, set("/entries/1/newClient/name", `""`)), "/entries/1/newClient/name"),
			bad("newClient ownerEmail", with(enrollCreate, set("/entries/1/newClient/ownerEmail", `"boss"`)), "/entries/1/newClient/ownerEmail"),
			bad("newClient unknown key", with(enrollCreate, set("/entries/1/newClient/phone", `"+15551230001"`)), "/entries/1/newClient", "phone"),
			bad("entry facts deep", with(enrollCreate, set("/entries/0/facts/profile/timezone", str(101))), "/entries/0/facts/profile/timezone"),
			bad("create ownerEmail", with(enrollCreate, set("/ownerEmail", `"nope"`)), "/ownerEmail"),
			bad("enroll 151 approvals", with(enrollEnroll, set("/approvalIds", uuids(151))), "/approvalIds"),
			bad("enroll duplicate approvals", with(enrollEnroll, set("/approvalIds", `["$U1", "$U1"]`)), "/approvalIds"),
			bad("enroll approval not a uuid", with(enrollEnroll, set("/approvalIds/0", `"ap-1"`)), "/approvalIds/0"),
			bad("enroll fingerprint", with(enrollEnroll, set("/fingerprint", `"abc"`)), "/fingerprint"),
			bad("enroll without approvalIds", with(enrollEnroll, del("/approvalIds")), "", "approvalIds"),
			bad("claim_owner token of 201", `{"action": "claim_owner", "partnerId": "`+u1+`", "sessionId": "`+u2+`", "token": `+str(201)+`}`, "/token"),
			bad("revoke sessionId", `{"action": "revoke", "partnerId": "`+u1+`", "sessionId": "s-1"}`, "/sessionId"),
		},
		"agencyInstallationCommand": {
			ok("preview_route_receipt", instPreview),
			ok("approve_route_receipt", with(instPreview, set("/action", `"approve_route_receipt"`), set("/fingerprint", `"$HEX"`))),
			ok("preview_handoff", with(instPreview, set("/action", `"preview_handoff"`))),
			ok("approve_handoff", with(instPreview, set("/action", `"approve_handoff"`), set("/fingerprint", `"$HEX"`))),
			ok("resolve_update", instResolve),
			ok("run_scenarios", instScenarios),
			ok("run_scenarios all", with(instScenarios, del("/scenarios"))),
			ok("run_scenarios 20", with(instScenarios, set("/scenarios", strs(20)))),
			bad("unknown action", with(instPreview, set("/action", `"install"`)), "/action"),
			bad("revision uuid", with(instPreview, set("/expectedRevision", `"$U1"`)), "/expectedRevision"),
			bad("no expectedRevision", with(instPreview, del("/expectedRevision")), "", "expectedRevision"),
			bad("fingerprint bad", with(instPreview, set("/fingerprint", `"xyz"`)), "/fingerprint"),
			bad("installationId not a uuid", with(instPreview, set("/installationId", `"inst-1"`)), "/installationId"),
			bad("preview unknown key", with(instPreview, set("/choices", "{}")), "", "choices"),
			bad("resolve_update without choices", with(instResolve, del("/choices")), "", "choices"),
			bad("resolve_update without fingerprint", with(instResolve, del("/fingerprint")), "", "fingerprint"),
			bad("resolve_update choices string", with(instResolve, set("/choices", `"keep"`)), "/choices"),
			bad("resolve_update updateId", with(instResolve, set("/updateId", `"u-1"`)), "/updateId"),
			bad("run_scenarios 21", with(instScenarios, set("/scenarios", strs(21))), "/scenarios"),
			bad("run_scenarios empty name", with(instScenarios, set("/scenarios/0", `""`)), "/scenarios/0"),
			bad("run_scenarios duplicate", with(instScenarios, set("/scenarios/1", `"after_hours"`)), "/scenarios"),
			bad("run_scenarios unknown key", with(instScenarios, set("/scenario", `"x"`)), "", "scenario"),
		},
	}
	cases["agencyEnrollmentCommand"] = append(cases["agencyEnrollmentCommand"], factsCases(selfService, "/facts")...)
	cases["agencyEnrollmentCommand"] = append(cases["agencyEnrollmentCommand"], factsCases(enrollCreate, "/entries/0/facts")[:10]...)
	return cases
}

func TestSchemaCases(t *testing.T) {
	all := schemaCases()
	for _, name := range SchemaNames() {
		if name == "common" {
			continue
		}
		var valid, invalid int
		for _, tc := range all[name] {
			if tc.valid {
				valid++
			} else {
				invalid++
			}
		}
		assert.GreaterOrEqual(t, valid, 1, "%s needs a valid body", name)
		assert.GreaterOrEqual(t, invalid, 3, "%s needs invalid bodies", name)
	}
	for name, cases := range all {
		t.Run(name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					err := validate(t, name, tc.body)
					if tc.valid {
						assert.NoError(t, err, "body: %s", tc.body)
						return
					}
					require.Error(t, err, "body: %s", tc.body)
					assert.Contains(t, leafLocations(err), tc.at, "error should point at %q: %v", tc.at, err)
					if tc.msg != "" {
						assert.Contains(t, err.Error(), tc.msg)
					}
				})
			}
		})
	}
}

// TestUnknownPropertiesRejected adds a property to the first valid body of every schema (every
// agency command too) and expects a failure, except at the top level of governedUpdateRequest.
func TestUnknownPropertiesRejected(t *testing.T) {
	seen := map[string]bool{}
	for name, cases := range schemaCases() {
		for _, tc := range cases {
			if !tc.valid {
				continue
			}
			var doc map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.body), &doc))
			key := name
			if a, ok := doc["action"].(string); ok && strings.HasPrefix(name, "agency") {
				key += "/" + a
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			body := with(tc.body, set("/zz_unknown", "1"))
			err := validate(t, name, body)
			if name == "governedUpdateRequest" {
				assert.NoError(t, err, key)
				continue
			}
			if assert.Error(t, err, key) {
				assert.Contains(t, err.Error(), "zz_unknown", key)
			}
		}
	}
	assert.Len(t, seen, 23+9+4+11+6, "every schema and every agency action has a valid body")
}

// TestAgencyActionsCovered checks that every action of the command schemas has a valid case.
func TestAgencyActionsCovered(t *testing.T) {
	all := schemaCases()
	for _, name := range []string{"agencyProfileCommand", "agencyOfferCommand", "agencyEnrollmentCommand", "agencyInstallationCommand"} {
		raw, _ := Schema(name)
		var doc struct {
			Properties struct {
				Action struct {
					Enum []string `json:"enum"`
				} `json:"action"`
			} `json:"properties"`
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		require.NoError(t, json.Unmarshal(raw, &doc))
		covered := map[string]bool{}
		for _, tc := range all[name] {
			var b struct {
				Action string `json:"action"`
			}
			require.NoError(t, json.Unmarshal([]byte(tc.body), &b))
			if tc.valid {
				covered[b.Action] = true
			}
		}
		for _, a := range doc.Properties.Action.Enum {
			assert.True(t, covered[a], "%s: action %s has no valid case", name, a)
			assert.Contains(t, doc.Defs, a, "%s: action %s has no definition", name, a)
		}
	}
}

func TestScopeEnums(t *testing.T) {
	raw, ok := Schema("common")
	require.True(t, ok)
	var doc struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	all := doc.Defs["scope"].Enum
	require.Len(t, all, 38)
	without := func(drop ...string) []string {
		var out []string
		for _, s := range all {
			if !contains(drop, s) {
				out = append(out, s)
			}
		}
		return out
	}
	assert.Equal(t, without("approvals:write", "concierge:write"), doc.Defs["signupScope"].Enum)
	assert.Equal(t, without("sdr:read", "sdr:write", "approvals:write", "concierge:write",
		"call_evidence:read", "call_evidence:write", "support:write"), doc.Defs["keyCreateScope"].Enum)
	assert.Len(t, doc.Defs["eventType"].Enum, 27)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
