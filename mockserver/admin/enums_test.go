package admin_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// strs returns the values of typed string constants as strings.
func strs[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// lookup walks a decoded JSON or YAML document along keys, failing the
// test when a key is missing.
func lookup(t *testing.T, doc any, keys ...string) any {
	t.Helper()
	v := doc
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: %q is not in an object", keys, k)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("%v: no %q", keys, k)
		}
	}
	return v
}

// enumAt returns the enum at keys, as strings.
func enumAt(t *testing.T, doc any, keys ...string) []string {
	t.Helper()
	raw, ok := lookup(t, doc, append(keys, "enum")...).([]any)
	if !ok {
		t.Fatalf("%v: enum is not a list", keys)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i], _ = v.(string)
	}
	return out
}

// parameterEnum returns the enum of a query parameter of an operation.
func parameterEnum(t *testing.T, doc any, path, method, name string) []string {
	t.Helper()
	params, _ := lookup(t, doc, "paths", path, method, "parameters").([]any)
	for _, p := range params {
		if m, ok := p.(map[string]any); ok && m["name"] == name {
			return enumAt(t, m, "schema")
		}
	}
	t.Fatalf("%s %s has no parameter %s", method, path, name)
	return nil
}

// TestEnumsMatchAdminYAML holds every enum's constants equal to the enums
// of openapi/admin.yaml and of the admin request schemas, in order.
func TestEnumsMatchAdminYAML(t *testing.T) {
	raw, err := os.ReadFile("../../openapi/admin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	schema := func(name string) any {
		t.Helper()
		b, ok := openapi.AdminSchema(name)
		if !ok {
			t.Fatalf("no admin schema %s", name)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	script, fault, consent := schema("mockScript"), schema("mockFault"), schema("mockConsent")
	comp := func(keys ...string) []string {
		t.Helper()
		return enumAt(t, doc, append([]string{"components", "schemas"}, keys...)...)
	}
	allOutcomes := append(admin.CallOutcomes(), admin.TextOutcomes()...)
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"ScriptStep.outcome", strs(allOutcomes...), comp("ScriptStep", "properties", "outcome")},
		{"mockScript calls outcome", strs(admin.CallOutcomes()...), enumAt(t, script, "properties", "calls", "items", "properties", "outcome")},
		{"mockScript texts outcome", strs(admin.TextOutcomes()...), enumAt(t, script, "properties", "texts", "items", "properties", "outcome")},
		{"ScriptStep.kind", strs(admin.StepCall, admin.StepText), comp("ScriptStep", "properties", "kind")},
		{"ScriptStep.status", strs(admin.StepPending, admin.StepUsed), comp("ScriptStep", "properties", "status")},
		{"listScript status", strs(admin.StepPending, admin.StepUsed), parameterEnum(t, doc, "/_mock/scripts", "get", "status")},
		{"ScriptStep transcript role", strs(admin.RoleAgent, admin.RoleCaller), comp("ScriptStep", "properties", "transcript", "items", "properties", "role")},
		{"mockScript transcript role", strs(admin.RoleAgent, admin.RoleCaller), enumAt(t, script, "properties", "calls", "items", "properties", "transcript", "items", "properties", "role")},
		{"FaultRule.target", strs(admin.FaultTargets()...), comp("FaultRule", "properties", "target")},
		{"mockFault target", strs(admin.FaultTargets()...), enumAt(t, fault, "properties", "target")},
		{"Delivery.kind", strs(admin.DeliveryKindSubscription, admin.DeliveryKindCallWebhook, admin.DeliveryKindApprovalCallback), comp("Delivery", "properties", "kind")},
		{"listDeliveries kind", strs(admin.DeliveryKindSubscription, admin.DeliveryKindCallWebhook, admin.DeliveryKindApprovalCallback), parameterEnum(t, doc, "/_mock/deliveries", "get", "kind")},
		{"Delivery.status", strs(admin.DeliveryPending, admin.DeliverySucceeded, admin.DeliveryFailed, admin.DeliveryCanceled), comp("Delivery", "properties", "status")},
		{"listDeliveries status", strs(admin.DeliveryPending, admin.DeliverySucceeded, admin.DeliveryFailed, admin.DeliveryCanceled), parameterEnum(t, doc, "/_mock/deliveries", "get", "status")},
		{"mockConsent status", strs(admin.ConsentOptedIn, admin.ConsentOptedOut, admin.ConsentNone), enumAt(t, consent, "properties", "status")},
		{"JournalEntry.fault", strs(admin.FaultStatus, admin.FaultLatency, admin.FaultDropped, admin.FaultTruncated), comp("JournalEntry", "properties", "fault")},
		{"OutboxMessage.channel", strs(admin.ChannelEmail, admin.ChannelSMS), comp("OutboxMessage", "properties", "channel")},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: the constants are %v, admin.yaml says %v", c.name, c.got, c.want)
		}
	}
}
