package hooks

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

const sampleBody = `{"id":"evt_1","event":"call.completed","business_id":"b1","timestamp":"2026-01-02T03:04:05Z",
"data":{"id":"c1","to":"+15551230001","duration":125,"summary":null,"lead":{"name":"Ada","email":"ada@example.com"},
"tags":["hot","vip"],"quality":{"empathy":9},"ratio":0.25,"answered":true}}`

func TestRenderTemplateReadsPathsFallbacksConstantsAndNests(t *testing.T) {
	body := decodeBody([]byte(sampleBody))
	out := renderTemplate(map[string]webhooks.FieldSource{
		"event":             webhooks.FieldPath("event"),
		"call.id":           webhooks.FieldPath("data.id"),
		"call.seconds":      webhooks.FieldPath("data.duration"),
		"contact.name":      webhooks.FieldPath("data.name|data.lead.name"),
		"contact.email":     webhooks.FieldPath(" data.email | data.lead.email "),
		"summary":           webhooks.FieldPath("data.summary|data.lead.name"),
		"summary_only":      webhooks.FieldPath("data.summary"),
		"missing":           webhooks.FieldPath("data.nope.deeper"),
		"first_tag":         webhooks.FieldPath("data.tags.0"),
		"tag_out_of_range":  webhooks.FieldPath("data.tags.5"),
		"tag_not_index":     webhooks.FieldPath("data.tags.x"),
		"through_a_scalar":  webhooks.FieldPath("data.duration.x"),
		"whole.object":      webhooks.FieldPath("data.quality"),
		"ratio":             webhooks.FieldPath("data.ratio"),
		"answered":          webhooks.FieldPath("data.answered"),
		"const.str":         webhooks.FieldValue("crm"),
		"const.num":         webhooks.FieldValue(3.5),
		"const.bool":        webhooks.FieldValue(false),
		"const.null":        webhooks.FieldValue(nil),
		"a.b.c.d":           webhooks.FieldPath("id"),
		"contact.phone":     webhooks.FieldPath("data.phone|data.to"),
		"all_missing_alts":  webhooks.FieldPath("x|y|z"),
		"body_itself.event": webhooks.FieldPath("event"),
	}, body)
	got, err := marshalCompact(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"event": "call.completed",
		"call": {"id": "c1", "seconds": 125},
		"contact": {"name": "Ada", "email": "ada@example.com", "phone": "+15551230001"},
		"summary": "Ada", "summary_only": null, "missing": null,
		"first_tag": "hot", "tag_out_of_range": null, "tag_not_index": null, "through_a_scalar": null,
		"whole": {"object": {"empathy": 9}}, "ratio": 0.25, "answered": true,
		"const": {"str": "crm", "num": 3.5, "bool": false, "null": null},
		"a": {"b": {"c": {"d": "evt_1"}}},
		"all_missing_alts": null,
		"body_itself": {"event": "call.completed"}
	}`, string(got))
	assert.Contains(t, string(got), `"seconds":125`, "numbers are kept exactly")
}

func TestValidateTemplate(t *testing.T) {
	ok := map[string]webhooks.FieldSource{"a.b": webhooks.FieldPath("data.x|id"), "a.c": webhooks.FieldValue("v"), "ab": webhooks.FieldPath("id")}
	assert.Nil(t, validateTemplate(ok), "a.b, a.c and ab do not collide")
	for name, fields := range map[string]map[string]webhooks.FieldSource{
		"leading dot":     {".a": webhooks.FieldPath("id")},
		"trailing dot":    {"a.": webhooks.FieldPath("id")},
		"double dot":      {"a..b": webhooks.FieldPath("id")},
		"path empty seg":  {"a": webhooks.FieldPath("data..x")},
		"path empty alt":  {"a": webhooks.FieldPath("id||event")},
		"path trailing":   {"a": webhooks.FieldPath("id|")},
		"path only space": {"a": webhooks.FieldPath(" ")},
		"leaf and object": {"a": webhooks.FieldPath("id"), "a.b": webhooks.FieldPath("id")},
		"deep collision":  {"x.y": webhooks.FieldPath("id"), "x.y.z": webhooks.FieldPath("id")},
		"too deep":        {strings.Repeat("a.", maxTemplateDepth) + "a": webhooks.FieldPath("id")},
		"long name":       {strings.Repeat("n", maxTemplateNameLen+1): webhooks.FieldPath("id")},
		"long path":       {"a": webhooks.FieldPath(strings.Repeat("p", maxTemplatePathLen+1))},
		"object constant": {"a": webhooks.FieldValue(map[string]any{})},
	} {
		e := validateTemplate(fields)
		if assert.NotNil(t, e, name) {
			assert.Equal(t, voiceagent.CodeInvalidRequest, e.Code, name)
			require.Len(t, e.Details, 1, name)
			assert.True(t, strings.HasPrefix(e.Details[0].Path, "/payload_template/fields"), name)
		}
	}
	many := map[string]webhooks.FieldSource{}
	for i := range maxTemplateFields + 1 {
		many["f"+strings.Repeat("x", i)] = webhooks.FieldPath("id")
	}
	assert.NotNil(t, validateTemplate(many))
}

// presetNames lists the presets, sorted.
func presetNames() []string {
	names := make([]string, 0, len(webhookPresets))
	for n := range webhookPresets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func TestPresetsAreValidTemplatesThatReadLeadAndCallData(t *testing.T) {
	assert.Equal(t, []string{"generic_crm", "gohighlevel", "hubspot", "pipedrive", "salesforce", "zoho_crm"}, presetNames(),
		"the presets of the webhookUpsert schema")
	lead := decodeBody([]byte(`{"id":"e","event":"lead.created","business_id":"b","timestamp":"t",
		"data":{"id":"l1","name":"Ada Lovelace","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone":"+15550000001"}}`))
	call := decodeBody([]byte(`{"id":"e","event":"call.completed","business_id":"b","timestamp":"t",
		"data":{"id":"c1","to":"+15550000002","summary":"Booked a visit","duration":60}}`))
	for _, name := range presetNames() {
		tpl, ok := expandPreset(name)
		require.True(t, ok)
		assert.Nil(t, validateTemplate(tpl.Fields), name)
		leadOut, err := marshalCompact(renderTemplate(tpl.Fields, lead))
		require.NoError(t, err)
		assert.Contains(t, string(leadOut), "ada@example.com", name)
		assert.Contains(t, string(leadOut), "+15550000001", name)
		callOut, err := marshalCompact(renderTemplate(tpl.Fields, call))
		require.NoError(t, err)
		assert.Contains(t, string(callOut), "+15550000002", name)
		assert.Contains(t, string(callOut), "Booked a visit", name)
	}
	// The expansion is a copy: editing it leaves the preset alone.
	tpl, _ := expandPreset("hubspot")
	delete(tpl.Fields, "properties.email")
	again, _ := expandPreset("hubspot")
	assert.Contains(t, again.Fields, "properties.email")
	_, ok := expandPreset("nope")
	assert.False(t, ok)
}

func TestFormEncodeFlattensWithDots(t *testing.T) {
	v := decodeBody([]byte(`{"a":{"b":"x y","n":1.50,"t":true,"z":null},"list":[1,{"k":"v"}],"empty":{}}`))
	form, err := url.ParseQuery(string(formEncode(v)))
	require.NoError(t, err)
	assert.Equal(t, url.Values{"a.b": {"x y"}, "a.n": {"1.50"}, "a.t": {"true"}, "a.z": {""}, "list.0": {"1"}, "list.1.k": {"v"}}, form)
	assert.Empty(t, formEncode("scalar"))
	assert.Equal(t, "c=3.5", string(formEncode(map[string]any{"c": 3.5})))
}

func TestRenderDelivery(t *testing.T) {
	ev := &store.Event{Base: store.Base{ID: "e1", Owner: "b1"}, Type: "lead.created",
		Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Data: json.RawMessage(`{"name":"<Ada & co>"}`)}
	body, ct := renderDelivery(&store.Webhook{BodyFormat: "json"}, ev)
	assert.Equal(t, ContentTypeJSON, ct)
	assert.Equal(t, `{"id":"e1","event":"lead.created","business_id":"b1","timestamp":"2026-01-02T03:04:05.000000006Z","data":{"name":"<Ada & co>"}}`, string(body),
		"the standard body: fixed member order, no HTML escaping, no trailing newline")
	parsed, err := webhooks.Parse(body)
	require.NoError(t, err)
	assert.Equal(t, "e1", parsed.ID)

	body, ct = renderDelivery(&store.Webhook{BodyFormat: "form"}, ev)
	assert.Equal(t, contentTypeForm, ct)
	assert.Equal(t, "business_id=b1&data.name=%3CAda+%26+co%3E&event=lead.created&id=e1&timestamp=2026-01-02T03%3A04%3A05.000000006Z", string(body))

	tpl := &webhooks.PayloadTemplate{Fields: map[string]webhooks.FieldSource{"who": webhooks.FieldPath("data.name")}}
	body, _ = renderDelivery(&store.Webhook{BodyFormat: "json", Template: tpl}, ev)
	assert.Equal(t, `{"who":"<Ada & co>"}`, string(body))
	body, _ = renderDelivery(&store.Webhook{BodyFormat: "json"}, &store.Event{Base: store.Base{ID: "e2"}, Type: "x"})
	assert.Contains(t, string(body), `"data":null`)
}

// FuzzRenderTemplate renders arbitrary templates against arbitrary bodies:
// it never panics, its output is always JSON and form-encodable, and for
// templates validateTemplate accepts every field lands at its nested name
// with its constant or the value its path reads.
func FuzzRenderTemplate(f *testing.F) {
	f.Add("contact.email", "data.lead.email|data.email", "const.x", "v", []byte(sampleBody))
	f.Add("a", "id", "a.b", "", []byte(`{"id":"x"}`))
	f.Add("a..b", "data..x", ".", "|", []byte(`[1,2]`))
	f.Add("list.0", "data.tags.1", "n", "1e400", []byte(`{"data":{"tags":[1,{"a":null}]}}`))
	f.Add("ü.名", "data.ü", "z", "null", []byte(`{"data":{"ü":"名"}}`))
	f.Add("", "", "", "", []byte(``))
	f.Fuzz(func(t *testing.T, name1, path1, name2, const2 string, body []byte) {
		fields := map[string]webhooks.FieldSource{}
		if name1 != "" {
			fields[name1] = webhooks.FieldPath(path1)
		}
		if name2 != "" && name2 != name1 {
			fields[name2] = webhooks.FieldValue(const2)
		}
		doc := decodeBody(body)
		out := renderTemplate(fields, doc)
		enc, err := marshalCompact(out)
		require.NoError(t, err)
		require.True(t, json.Valid(enc))
		_, err = url.ParseQuery(string(formEncode(decodeBody(enc))))
		require.NoError(t, err)
		if validateTemplate(fields) != nil {
			return
		}
		for name, src := range fields {
			segs, _ := splitDots(name)
			var cur any = out
			for _, seg := range segs {
				m, ok := cur.(map[string]any)
				require.True(t, ok, "field %q: %q is not an object in %s", name, seg, enc)
				cur, ok = m[seg]
				require.True(t, ok, "field %q missing in %s", name, enc)
			}
			if src.IsValue {
				assert.Equal(t, src.Value, cur, "constant of %q", name)
			} else {
				assert.Equal(t, resolveSource(doc, src.Path), cur, "path of %q", name)
			}
		}
	})
}

func BenchmarkRenderDelivery(b *testing.B) {
	ev := &store.Event{Base: store.Base{ID: "e1", Owner: "b1"}, Type: "lead.created", Timestamp: time.Now(),
		Data: json.RawMessage(`{"id":"l1","name":"Ada Lovelace","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone":"+15550000001","status":"new","source":"call","notes":null}`)}
	hubspot, _ := expandPreset("hubspot")
	for _, bc := range []struct {
		name string
		w    *store.Webhook
	}{
		{"standard", &store.Webhook{BodyFormat: "json"}},
		{"preset", &store.Webhook{BodyFormat: "json", Template: hubspot}},
		{"preset_form", &store.Webhook{BodyFormat: "form", Template: hubspot}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				renderDelivery(bc.w, ev)
			}
		})
	}
}
