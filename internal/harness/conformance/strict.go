package conformance

import (
	"bytes"
	"fmt"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v3"
)

// forStrictMode rewrites the bundled document into an equivalent one that the validator's strict
// mode reads as the document means it:
//
//   - A schema with additionalProperties other than false is a map, or an object that takes
//     extra members by design (metadata, vendor_config, a governed update's payload): strict mode
//     would report each member it cannot name, so the schema gets the equivalent
//     patternProperties {"^": <the additionalProperties schema>} (the pattern matches every
//     name; JSON Schema then applies the same schema to the same members). additionalProperties
//     true becomes {"^": {$ref: anyJSON}}, a component that accepts any JSON value and declares
//     every member at every depth the same way, so the free-form value is free-form all the way
//     down.
//   - A $ref with sibling keywords (allowed by OpenAPI 3.1: {$ref, description}) loses its
//     siblings when they are annotations only (description, title, examples, deprecated), and
//     becomes {allOf: [{$ref}], <siblings>} otherwise, because strict mode looks only at the
//     siblings of a $ref.
//
// Validation results are unchanged; only strict mode's view of what is declared is.
func forStrictMode(raw []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("conformance: parsing the bundled document: %w", err)
	}
	rewriteForStrict(&doc)
	addAnyJSON(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("conformance: encoding the document: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("conformance: encoding the document: %w", err)
	}
	return buf.Bytes(), nil
}

func rewriteForStrict(n *yaml.Node) {
	for _, c := range n.Content {
		rewriteForStrict(c)
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	if addl := value(n, "additionalProperties"); addl != nil && !(addl.Kind == yaml.ScalarNode && addl.Value == "false") {
		schema := addl
		if addl.Kind == yaml.ScalarNode { // true
			schema = anyJSONRef()
		}
		pp := value(n, "patternProperties")
		if pp == nil {
			pp = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			n.Content = append(n.Content, scalar("patternProperties"), pp)
		}
		if value(pp, anyName) == nil {
			pp.Content = append(pp.Content, scalar(anyName), schema)
		}
	}
	if ref := value(n, "$ref"); ref != nil && len(n.Content) > 2 {
		var rest []*yaml.Node
		annotationsOnly := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i].Value; k {
			case "$ref":
			case "description", "title", "examples", "deprecated":
			default:
				annotationsOnly = false
			}
			if n.Content[i].Value != "$ref" {
				rest = append(rest, n.Content[i], n.Content[i+1])
			}
		}
		only := []*yaml.Node{scalar("$ref"), ref}
		if annotationsOnly {
			n.Content = only
			return
		}
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map", Content: only}}}
		n.Content = append([]*yaml.Node{scalar("allOf"), list}, rest...)
	}
}

// anyName is the pattern that matches every member name. (The empty pattern would too, but the
// library loses an empty key when it renders a schema inline.)
const anyName = "^"

// anyJSON is the name of the component that accepts any JSON value, members and items
// included, all declared.
const anyJSON = "conformance.AnyJSON"

func anyJSONRef() *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar("$ref"), scalar("#/components/schemas/" + anyJSON)}}
}

// addAnyJSON adds the anyJSON component under components/schemas.
func addAnyJSON(doc *yaml.Node) {
	schemas := value(value(doc.Content[0], "components"), "schemas")
	self := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar(anyName), anyJSONRef()}}
	comp := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		scalar("patternProperties"), self,
		scalar("items"), anyJSONRef(),
	}}
	schemas.Content = append(schemas.Content, scalar(anyJSON), comp)
}

// value returns the value of key in a mapping node, nil if absent.
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// matchSchemas returns, by the hash strict mode looks them up with, the schemas strict mode
// compiles to decide which variant of a oneOf or anyOf (or whether an if) a value matches. It
// compiles them again for every exchange unless the schema cache holds them, so lazyCache
// compiles each once, when first needed.
func matchSchemas(model *v3.Document) map[uint64]*base.Schema {
	out := map[uint64]*base.Schema{}
	seen := map[uint64]bool{}
	var walk func(p *base.SchemaProxy, match bool)
	walk = func(p *base.SchemaProxy, match bool) {
		if p == nil {
			return
		}
		s := p.Schema()
		if s == nil || s.GoLow() == nil {
			return
		}
		h := s.GoLow().Hash()
		if match {
			out[h] = s
		}
		if seen[h] {
			return
		}
		seen[h] = true
		for _, c := range s.AllOf {
			walk(c, false)
		}
		for _, c := range s.OneOf {
			walk(c, true)
		}
		for _, c := range s.AnyOf {
			walk(c, true)
		}
		walk(s.If, true)
		walk(s.Then, false)
		walk(s.Else, false)
		walk(s.Not, false)
		for _, m := range []*orderedmap.Map[string, *base.SchemaProxy]{s.Properties, s.PatternProperties, s.DependentSchemas} {
			for c := range m.ValuesFromOldest() {
				walk(c, false)
			}
		}
		if s.Items != nil && s.Items.IsA() {
			walk(s.Items.A, false)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
			walk(s.AdditionalProperties.A, false)
		}
	}
	if model.Components != nil {
		for p := range model.Components.Schemas.ValuesFromOldest() {
			walk(p, false)
		}
	}
	for _, item := range model.Paths.PathItems.FromOldest() {
		for _, op := range item.GetOperations().FromOldest() {
			for _, prm := range op.Parameters {
				walk(prm.Schema, false)
			}
			if op.RequestBody != nil {
				for mt := range op.RequestBody.Content.ValuesFromOldest() {
					walk(mt.Schema, false)
				}
			}
			if op.Responses != nil {
				resps := []*v3.Response{op.Responses.Default}
				for r := range op.Responses.Codes.ValuesFromOldest() {
					resps = append(resps, r)
				}
				for _, r := range resps {
					if r == nil {
						continue
					}
					for mt := range r.Content.ValuesFromOldest() {
						walk(mt.Schema, false)
					}
				}
			}
		}
	}
	return out
}
