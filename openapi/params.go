package openapi

import (
	"fmt"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// QueryParameter is a query parameter an operation declares.
type QueryParameter struct {
	// Name is the parameter's name.
	Name string
	// Required reports whether the operation needs the parameter.
	Required bool
	// AllowsEmpty reports whether the parameter's schema accepts the empty
	// string: a plain string with no minLength, enum, const, pattern,
	// format or reference. Every other schema refuses ?name= (minLength: 1,
	// an enum, a uuid, an integer, a timestamp).
	AllowsEmpty bool
}

// parameterDoc is what QueryParameters reads of a document.
type parameterDoc struct {
	Paths      map[string]map[string]operationDoc `yaml:"paths"`
	Components struct {
		Parameters map[string]parameter `yaml:"parameters"`
	} `yaml:"components"`
}

type operationDoc struct {
	OperationID string      `yaml:"operationId"`
	Parameters  []parameter `yaml:"parameters"`
}

type parameter struct {
	Ref      string         `yaml:"$ref"`
	Name     string         `yaml:"name"`
	In       string         `yaml:"in"`
	Required bool           `yaml:"required"`
	Schema   map[string]any `yaml:"schema"`
}

// queryParameters is QueryParameters, read once.
var queryParameters = sync.OnceValues(func() (map[string][]QueryParameter, error) {
	out := map[string][]QueryParameter{}
	for _, doc := range []struct {
		name string
		raw  []byte
	}{{"openapi.yaml", Document}, {"admin.yaml", AdminDocument}} {
		var d parameterDoc
		if err := yaml.Unmarshal(doc.raw, &d); err != nil {
			return nil, fmt.Errorf("openapi: reading %s: %w", doc.name, err)
		}
		for _, methods := range d.Paths {
			for _, op := range methods {
				if op.OperationID == "" {
					continue // a path's own members (summary, parameters)
				}
				for _, p := range op.Parameters {
					if ref, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
						p, ok = d.Components.Parameters[ref]
						if !ok {
							return nil, fmt.Errorf("openapi: %s: %s refers to no parameter %s", doc.name, op.OperationID, ref)
						}
					}
					if p.In == "query" {
						out[op.OperationID] = append(out[op.OperationID], QueryParameter{Name: p.Name, Required: p.Required, AllowsEmpty: allowsEmpty(p.Schema)})
					}
				}
			}
		}
	}
	return out, nil
})

// QueryParameters returns the query parameters each operation of openapi.yaml and admin.yaml
// declares, by operationId, in the order the operation lists them. The mock server refuses an
// empty value of a parameter that does not allow one.
func QueryParameters() (map[string][]QueryParameter, error) { return queryParameters() }

// allowsEmpty reports whether a parameter's schema accepts "".
func allowsEmpty(schema map[string]any) bool {
	if schema["type"] != "string" {
		return false
	}
	for _, k := range []string{"minLength", "enum", "const", "pattern", "format", "$ref"} {
		if _, ok := schema[k]; ok {
			return false
		}
	}
	return true
}
