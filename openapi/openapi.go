// Package openapi holds the machine-readable description of the API: the JSON Schemas of request
// bodies that the mock server validates with and GET /v1/schemas serves, one file per schema in
// schemas/, named <name>.json.
//
// openapi.yaml ([Document]) is the OpenAPI 3.1 description of the whole API: every path and
// method, parameters, responses, the error format, security schemes and the scopes of each
// operation (x-required-scopes). Its request bodies reference the schema files by relative path
// (schemas/<name>.json), so the document and the mock's validation cannot drift. [Bundled] is the
// self-contained form the mock server serves at GET /api/openapi.yaml: the referenced schemas
// copied under components/schemas (see [ComponentName]). internal/harness/conformance validates test
// traffic against it.
//
// Every schema is JSON Schema draft 2020-12 with the $id
// https://api.voiceagent.example/schemas/<name>.json (see [SchemaID]). Shared definitions (E.164
// numbers, uuids, 64-hex digests, scopes, event names, the agency facts object and so on) live in
// the schema named common and are referenced with relative references such as
// "common.json#/$defs/e164", so a validator must be given every schema as a resource under its $id
// before it compiles one:
//
//	c := jsonschema.NewCompiler()
//	c.AssertFormat()
//	for _, name := range openapi.SchemaNames() {
//		raw, _ := openapi.Schema(name)
//		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
//		_ = c.AddResource(openapi.SchemaID(name), doc)
//	}
//	sch, err := c.Compile(openapi.SchemaID("callCreate"))
//
// The schemas assume format assertion is on (email, uri, uuid, date-time); uuids also carry a
// pattern so they hold where formats are annotations only.
package openapi

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Schemas holds the schema files, schemas/<name>.json.
//
//go:embed schemas/*.json
var Schemas embed.FS

// SchemaBaseURL is the base of every schema's $id: the $id of schema name is SchemaBaseURL + name + ".json".
const SchemaBaseURL = "https://api.voiceagent.example/schemas/"

// SchemaID returns the $id of the schema called name, under which a validator must register it.
func SchemaID(name string) string {
	return SchemaBaseURL + name + ".json"
}

// AdminSchemas holds the JSON Schemas of the mock server's admin API bodies
// (admin.yaml), adminschemas/<name>.json. They share the $id base of the
// API's schemas (and refer to common.json), but GET /v1/schemas does not
// serve them: they are not the API's.
//
//go:embed adminschemas/*.json
var AdminSchemas embed.FS

// SchemaNames returns the names (file names without .json) sorted.
func SchemaNames() []string { return names(Schemas, "schemas") }

// AdminSchemaNames returns the names of the admin API's schemas, sorted.
func AdminSchemaNames() []string { return names(AdminSchemas, "adminschemas") }

// AdminSchema returns the raw JSON of one admin API schema, false if unknown.
func AdminSchema(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := AdminSchemas.ReadFile(path.Join("adminschemas", name+".json"))
	if err != nil {
		return nil, false
	}
	return b, true
}

func names(fsys embed.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		// The directory is embedded at build time; it cannot be missing.
		panic("openapi: embedded schemas missing: " + err.Error())
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Schema returns the raw JSON of one schema, false if unknown.
func Schema(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := Schemas.ReadFile(path.Join("schemas", name+".json"))
	if err != nil {
		return nil, false
	}
	return b, true
}
