package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// normal decodes YAML or JSON into plain JSON values (float64 numbers), so documents read by
// either decoder compare equal.
func normal(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func bundledDoc(t *testing.T, server string) map[string]any {
	t.Helper()
	raw, err := Bundled(server)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	return normal(t, doc).(map[string]any)
}

// pointer resolves a JSON Pointer fragment ("/components/schemas/x") in doc.
func pointer(doc any, ptr string) (any, bool) {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func refs(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				*out = append(*out, s)
				continue
			}
			refs(x, out)
		}
	case []any:
		for _, x := range v {
			refs(x, out)
		}
	}
}

func TestDocumentBasics(t *testing.T) {
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(Document, &doc))
	assert.Equal(t, "3.1.0", doc["openapi"])
	info := doc["info"].(map[string]any)
	assert.Equal(t, "2026-06-05", info["version"], "info.version is the date of the description, as a string")
}

func TestBundledIsSelfContained(t *testing.T) {
	doc := bundledDoc(t, "")
	var all []string
	refs(doc, &all)
	require.NotEmpty(t, all)
	for _, r := range all {
		frag, ok := strings.CutPrefix(r, "#")
		if !assert.True(t, ok, "external reference %q in the bundled document", r) {
			continue
		}
		_, found := pointer(doc, frag)
		assert.True(t, found, "reference %q resolves to nothing", r)
	}
}

// transform is what bundling does to one schema file, written independently of bundle.go: drop
// $id, $schema and $defs, and point references at the components.
func transform(name string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				file, frag, _ := strings.Cut(s, "#")
				target := name
				if file != "" {
					target = strings.TrimSuffix(file, ".json")
				}
				if d, ok := strings.CutPrefix(frag, "/$defs/"); ok {
					out[k] = "#/components/schemas/" + target + "." + d
				} else {
					out[k] = "#/components/schemas/" + target + frag
				}
				continue
			}
			out[k] = transform(name, x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = transform(name, x)
		}
		return out
	}
	return v
}

func TestBundledKeepsEverySchemaExactly(t *testing.T) {
	doc := bundledDoc(t, "")
	comps := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, name := range SchemaNames() {
		raw, _ := Schema(name)
		var src map[string]any
		require.NoError(t, json.Unmarshal(raw, &src), name)
		if _, bundled := comps[name]; !bundled && name != "common" {
			// Not referenced by openapi.yaml (see the coverage tests of internal/harness/conformance).
			continue
		}
		defs, _ := src["$defs"].(map[string]any)
		for d, def := range defs {
			if got, ok := comps[ComponentName(name, d)]; ok { // only referenced $defs are bundled
				assert.Equal(t, transform(name, def), got, "%s.$defs.%s", name, d)
			}
		}
		if name == "common" {
			assert.NotContains(t, comps, "common", "common validates nothing; only its $defs are components")
			continue
		}
		delete(src, "$id")
		delete(src, "$schema")
		delete(src, "$defs")
		assert.Equal(t, transform(name, src), comps[name], name)
	}
}

func TestBundledServerAndJSON(t *testing.T) {
	const self = "http://127.0.0.1:8099/api"
	doc := bundledDoc(t, self)
	servers := doc["servers"].([]any)
	require.GreaterOrEqual(t, len(servers), 2)
	assert.Equal(t, self, servers[0].(map[string]any)["url"], "the serving mock comes first")
	assert.Equal(t, "https://api.voiceagent.example/api", servers[1].(map[string]any)["url"])

	plain := bundledDoc(t, "")
	assert.Equal(t, "https://api.voiceagent.example/api", plain["servers"].([]any)[0].(map[string]any)["url"],
		"the cached document is not changed by a served copy")

	j, err := BundledJSON(self)
	require.NoError(t, err)
	var fromJSON any
	require.NoError(t, json.Unmarshal(j, &fromJSON))
	assert.Equal(t, any(doc), fromJSON)
}

func TestComponentName(t *testing.T) {
	assert.Equal(t, "callCreate", ComponentName("callCreate", ""))
	assert.Equal(t, "common.e164", ComponentName("common", "e164"))
}

func TestBundleRejectsForeignReferences(t *testing.T) {
	for _, src := range []string{
		"openapi: 3.1.0\ncomponents:\n  schemas: {}\npaths:\n  /x:\n    $ref: 'https://elsewhere.example/x.yaml'\n",
		"openapi: 3.1.0\ncomponents:\n  schemas: {}\nx:\n  $ref: 'schemas/nope.json'\n",
		"openapi: 3.1.0\ncomponents:\n  schemas: {}\nx:\n  $ref: 'schemas/sub/callCreate.json'\n",
		"openapi: 3.1.0\nx:\n  $ref: 'schemas/callCreate.json'\n",
		"- not a mapping\n",
	} {
		_, err := bundle([]byte(src), "openapi.yaml", refPrefix, Schema)
		assert.Error(t, err, src)
	}
	_, err := bundle([]byte("openapi: 3.1.0\ncomponents:\n  schemas: {}\nx:\n  $ref: 'schemas/callCreate.json'\n"), "openapi.yaml", refPrefix, Schema)
	assert.NoError(t, err)
}

// TestBundledHasNoUnusedComponents checks that every component of the bundled document is
// referenced (bundling takes only the $defs that are used; written components must be used too).
func TestBundledHasNoUnusedComponents(t *testing.T) {
	doc := bundledDoc(t, "")
	var all []string
	refs(doc, &all)
	used := map[string]bool{}
	for _, r := range all {
		parts := strings.Split(strings.TrimPrefix(r, "#/"), "/")
		if len(parts) >= 3 {
			used[strings.Join(parts[:3], "/")] = true
		}
	}
	for kind, m := range doc["components"].(map[string]any) {
		if kind == "securitySchemes" {
			continue // used by name in security requirements
		}
		for name := range m.(map[string]any) {
			assert.True(t, used["components/"+kind+"/"+name], "components/%s/%s is never referenced", kind, name)
		}
	}
}

// TestBundledAdminIsSelfContained checks the admin document the mock serves at
// GET /_mock/openapi.yaml: every reference internal and resolving, the admin body schemas (and
// the shared definitions they use) bundled as written, the serving mock first among the servers.
func TestBundledAdminIsSelfContained(t *testing.T) {
	const self = "http://127.0.0.1:8099"
	raw, err := BundledAdmin(self)
	require.NoError(t, err)
	var parsed map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &parsed))
	doc := normal(t, parsed).(map[string]any)
	var all []string
	refs(doc, &all)
	require.NotEmpty(t, all)
	for _, r := range all {
		frag, ok := strings.CutPrefix(r, "#")
		if !assert.True(t, ok, "external reference %q in the bundled admin document", r) {
			continue
		}
		_, found := pointer(doc, frag)
		assert.True(t, found, "reference %q resolves to nothing", r)
	}
	comps := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, name := range AdminSchemaNames() {
		raw, _ := AdminSchema(name)
		var src map[string]any
		require.NoError(t, json.Unmarshal(raw, &src), name)
		delete(src, "$id")
		delete(src, "$schema")
		delete(src, "$defs")
		assert.Equal(t, transform(name, src), comps[name], name)
	}
	assert.Contains(t, comps, "common.uuid", "the shared definitions the admin schemas use come along")
	assert.Equal(t, self, doc["servers"].([]any)[0].(map[string]any)["url"], "the serving mock comes first")

	var plain map[string]any
	require.NoError(t, yaml.Unmarshal(AdminDocument, &plain))
	var want, got []string
	for p := range plain["paths"].(map[string]any) {
		want = append(want, p)
	}
	for p := range doc["paths"].(map[string]any) {
		got = append(got, p)
	}
	assert.ElementsMatch(t, want, got, "every path of admin.yaml")
	assert.Contains(t, got, "/_mock/health")
}
