package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Bounds of payload templates beyond the schema's (at most 100 fields).
const (
	maxTemplateFields  = 100
	maxTemplateNameLen = 200
	maxTemplatePathLen = 500
	maxTemplateDepth   = 10
)

// eventBody is the standard body of an event (docs/mockserver.md, section
// Deliveries), as its JSON: {"id", "event", "business_id", "timestamp",
// "data"}.
func eventBody(ev *store.Event) []byte {
	data := ev.Data
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	b, _ := marshalCompact(webhooks.Event{ID: ev.ID, Type: webhooks.EventType(ev.Type), BusinessID: ev.Owner, Timestamp: ev.Timestamp, Data: data})
	return b
}

// marshalCompact encodes v without HTML escaping and without a trailing
// newline.
func marshalCompact(v any) ([]byte, error) {
	b, err := jsonview.EncodeJSON(v)
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// splitDots splits a template field name or path alternative on dots; ok
// is false when a segment is empty.
func splitDots(s string) ([]string, bool) {
	segs := strings.Split(s, ".")
	for _, seg := range segs {
		if seg == "" {
			return nil, false
		}
	}
	return segs, true
}

// validateTemplate checks what the schema cannot: field names and paths
// made of non-empty dot-separated segments, bounded lengths and depth, and
// no field name that is a prefix of another (a value cannot be both a leaf
// and an object). It returns nil or a 400 naming the field.
func validateTemplate(fields map[string]webhooks.FieldSource) *domain.Error {
	if len(fields) > maxTemplateFields {
		return domain.InvalidField("/payload_template/fields", "at most %d fields", maxTemplateFields)
	}
	names := make([]string, 0, len(fields))
	for name, src := range fields {
		ptr := "/payload_template/fields/" + jsonPointerEscape(name)
		if len(name) > maxTemplateNameLen {
			return domain.InvalidField(ptr, "field names are at most %d characters", maxTemplateNameLen)
		}
		segs, ok := splitDots(name)
		if !ok {
			return domain.InvalidField(ptr, "field name %q has an empty segment (dots nest the output: a.b)", name)
		}
		if len(segs) > maxTemplateDepth {
			return domain.InvalidField(ptr, "field name %q nests deeper than %d levels", name, maxTemplateDepth)
		}
		if src.IsValue {
			switch src.Value.(type) {
			case nil, string, float64, bool, json.Number:
			default:
				return domain.InvalidField(ptr+"/value", "a constant is a string, number, boolean or null")
			}
		} else {
			if len(src.Path) > maxTemplatePathLen {
				return domain.InvalidField(ptr, "paths are at most %d characters", maxTemplatePathLen)
			}
			for _, alt := range strings.Split(src.Path, "|") {
				if _, ok := splitDots(strings.TrimSpace(alt)); !ok {
					return domain.InvalidField(ptr, "path %q: each alternative (a|b) is a dot path with non-empty segments, such as data.email", src.Path)
				}
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for i := 1; i < len(names); i++ {
		if strings.HasPrefix(names[i], names[i-1]+".") {
			return domain.InvalidField("/payload_template/fields/"+jsonPointerEscape(names[i]),
				"field %q nests under field %q, which is a value: a field cannot be both", names[i], names[i-1])
		}
	}
	return nil
}

// jsonPointerEscape escapes a JSON Pointer token.
func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// decodeBody decodes a standard body for template lookups, numbers kept
// exact.
func decodeBody(body []byte) any {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// lookupPath reads one dot path in a decoded body: object members by name,
// array items by index. found is false when a segment is missing.
func lookupPath(v any, path string) (out any, found bool) {
	segs, ok := splitDots(path)
	if !ok {
		return nil, false
	}
	for _, seg := range segs {
		switch c := v.(type) {
		case map[string]any:
			if v, ok = c[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// resolveSource evaluates "a|b|c": the first alternative with a non-null
// value, or nil.
func resolveSource(body any, src string) any {
	for _, alt := range strings.Split(src, "|") {
		if v, ok := lookupPath(body, strings.TrimSpace(alt)); ok && v != nil {
			return v
		}
	}
	return nil
}

// renderTemplate builds a template's output from a decoded standard body:
// each field's value at its (dot-nested) name. Fields are placed in name
// order; a field that would collide with another (only possible in
// templates validateTemplate rejects) is skipped.
func renderTemplate(fields map[string]webhooks.FieldSource, body any) map[string]any {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	out := map[string]any{}
	for _, name := range names {
		segs, ok := splitDots(name)
		if !ok {
			continue
		}
		src := fields[name]
		var val any
		if src.IsValue {
			val = src.Value
		} else {
			val = resolveSource(body, src.Path)
		}
		setNested(out, segs, val)
	}
	return out
}

// setNested sets out[a][b]...=val, creating objects on the way; it leaves
// out unchanged when a segment is already a value or the leaf an object.
func setNested(out map[string]any, segs []string, val any) {
	m := out
	for _, seg := range segs[:len(segs)-1] {
		next, exists := m[seg]
		if !exists {
			child := map[string]any{}
			m[seg] = child
			m = child
			continue
		}
		child, isMap := next.(map[string]any)
		if !isMap {
			return
		}
		m = child
	}
	leaf := segs[len(segs)-1]
	if _, exists := m[leaf]; exists {
		return
	}
	m[leaf] = val
}

// formEncode flattens a JSON value into form fields: object members and
// array items are joined to their parent's key with dots (contact.email,
// tags.0), null is the empty string, numbers and booleans their JSON text.
// Keys are sorted.
func formEncode(v any) []byte {
	vals := url.Values{}
	flattenForm(vals, "", v)
	return []byte(vals.Encode())
}

func flattenForm(vals url.Values, key string, v any) {
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch c := v.(type) {
	case map[string]any:
		for k, child := range c {
			flattenForm(vals, join(k), child)
		}
		return
	case []any:
		for i, child := range c {
			flattenForm(vals, join(strconv.Itoa(i)), child)
		}
		return
	}
	if key == "" {
		return // a scalar body has no field name
	}
	switch c := v.(type) {
	case nil:
		vals.Set(key, "")
	case string:
		vals.Set(key, c)
	case json.Number:
		vals.Set(key, c.String())
	case float64:
		vals.Set(key, strconv.FormatFloat(c, 'f', -1, 64))
	case bool:
		vals.Set(key, strconv.FormatBool(c))
	default:
		vals.Set(key, fmt.Sprint(c))
	}
}

// Content types of delivery bodies.
const (
	// ContentTypeJSON is the content type of JSON bodies: the standard
	// body, a JSON template's output, every callback.
	ContentTypeJSON = "application/json"
	// contentTypeForm is the content type of form bodies (body_format
	// form).
	contentTypeForm = "application/x-www-form-urlencoded"
)

// renderDelivery renders an event for a subscription: the standard body or
// the template's output, as JSON or a form.
func renderDelivery(w *store.Webhook, ev *store.Event) (body []byte, contentType string) {
	std := eventBody(ev)
	var v any
	if w.Template != nil {
		v = renderTemplate(w.Template.Fields, decodeBody(std))
	} else if w.BodyFormat == "form" {
		v = decodeBody(std)
	}
	if w.BodyFormat == "form" {
		return formEncode(v), contentTypeForm
	}
	if v == nil {
		return std, ContentTypeJSON
	}
	b, err := marshalCompact(v)
	if err != nil {
		return std, ContentTypeJSON
	}
	return b, ContentTypeJSON
}

// webhookPresets are the presets: starting field maps named for CRMs (the
// schema's preset enum).
// A preset expands into the subscription's payload_template, which the user
// can then edit and send back. Paths read the standard body; alternatives
// cover the data of lead, call, SMS and other events.
var webhookPresets = map[string]map[string]webhooks.FieldSource{
	"generic_crm": {
		"event":                     tplPath("event"),
		"event_id":                  tplPath("id"),
		"occurred_at":               tplPath("timestamp"),
		"business_id":               tplPath("business_id"),
		"record.id":                 tplPath("data.id"),
		"record.status":             tplPath("data.status"),
		"contact.name":              tplPath("data.name|data.customer_name|data.lead.name"),
		"contact.first_name":        tplPath("data.first_name|data.lead.first_name"),
		"contact.last_name":         tplPath("data.last_name|data.lead.last_name"),
		"contact.email":             tplPath("data.email|data.lead.email"),
		"contact.phone":             tplPath("data.phone|data.lead.phone|data.to|data.from"),
		"activity.summary":          tplPath("data.summary|data.message|data.body|data.notes"),
		"activity.duration_seconds": tplPath("data.duration"),
		"activity.recording_url":    tplPath("data.recording_url"),
		"source":                    tplConst("voiceagent"),
	},
	"hubspot": {
		"properties.email":                tplPath("data.email|data.lead.email"),
		"properties.firstname":            tplPath("data.first_name|data.lead.first_name|data.name"),
		"properties.lastname":             tplPath("data.last_name|data.lead.last_name"),
		"properties.phone":                tplPath("data.phone|data.lead.phone|data.to|data.from"),
		"properties.lifecyclestage":       tplConst("lead"),
		"properties.hs_lead_status":       tplConst("NEW"),
		"properties.voiceagent_event":     tplPath("event"),
		"properties.voiceagent_event_id":  tplPath("id"),
		"properties.voiceagent_summary":   tplPath("data.summary|data.notes|data.message|data.body"),
		"properties.voiceagent_record_id": tplPath("data.id"),
	},
	"salesforce": {
		"FirstName":           tplPath("data.first_name|data.lead.first_name"),
		"LastName":            tplPath("data.last_name|data.lead.last_name|data.name|data.customer_name"),
		"Email":               tplPath("data.email|data.lead.email"),
		"Phone":               tplPath("data.phone|data.lead.phone|data.to|data.from"),
		"Company":             tplPath("data.company|data.business_name"),
		"LeadSource":          tplConst("Voice Agent"),
		"Description":         tplPath("data.summary|data.notes|data.message|data.body"),
		"Voiceagent_Event__c": tplPath("event"),
		"Voiceagent_Id__c":    tplPath("id"),
	},
	"pipedrive": {
		"name":             tplPath("data.name|data.customer_name|data.lead.name"),
		"email":            tplPath("data.email|data.lead.email"),
		"phone":            tplPath("data.phone|data.lead.phone|data.to|data.from"),
		"note.content":     tplPath("data.summary|data.notes|data.message|data.body"),
		"voiceagent.event": tplPath("event"),
		"voiceagent.id":    tplPath("id"),
	},
	"zoho_crm": {
		"First_Name":       tplPath("data.first_name|data.lead.first_name"),
		"Last_Name":        tplPath("data.last_name|data.lead.last_name|data.name|data.customer_name"),
		"Email":            tplPath("data.email|data.lead.email"),
		"Phone":            tplPath("data.phone|data.lead.phone|data.to|data.from"),
		"Lead_Source":      tplConst("Voice Agent"),
		"Description":      tplPath("data.summary|data.notes|data.message|data.body"),
		"Voiceagent_Event": tplPath("event"),
		"Voiceagent_Id":    tplPath("id"),
	},
	"gohighlevel": {
		"firstName":                    tplPath("data.first_name|data.lead.first_name"),
		"lastName":                     tplPath("data.last_name|data.lead.last_name"),
		"name":                         tplPath("data.name|data.customer_name|data.lead.name"),
		"email":                        tplPath("data.email|data.lead.email"),
		"phone":                        tplPath("data.phone|data.lead.phone|data.to|data.from"),
		"source":                       tplConst("voiceagent"),
		"customField.voiceagent_event": tplPath("event"),
		"customField.voiceagent_id":    tplPath("id"),
		"customField.summary":          tplPath("data.summary|data.notes|data.message|data.body"),
	},
}

var (
	tplPath  = webhooks.FieldPath
	tplConst = webhooks.FieldValue
)

// expandPreset returns a fresh copy of a preset's field map.
func expandPreset(name string) (*webhooks.PayloadTemplate, bool) {
	p, ok := webhookPresets[name]
	if !ok {
		return nil, false
	}
	fields := make(map[string]webhooks.FieldSource, len(p))
	for k, v := range p {
		fields[k] = v
	}
	return &webhooks.PayloadTemplate{Fields: fields}, true
}
