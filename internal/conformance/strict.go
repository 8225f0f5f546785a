package conformance

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// forStrictMode rewrites the bundled document into an equivalent one that the validator's strict
// mode reads as the document means it:
//
//   - A schema with additionalProperties other than false is a map, or an object that takes
//     extra members by design (metadata, vendor_config, a governed update's payload): strict mode
//     would report each member it cannot name, so the schema gets the equivalent
//     patternProperties {"": <the additionalProperties schema>} (the empty pattern matches every
//     name; JSON Schema then applies the same schema to the same members). additionalProperties
//     true becomes {"": {$ref: anyJSON}}, a component that accepts any JSON value and declares
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
		if value(pp, "") == nil {
			pp.Content = append(pp.Content, scalar(""), schema)
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

// anyJSON is the name of the component that accepts any JSON value, members and items
// included, all declared.
const anyJSON = "conformance.AnyJSON"

func anyJSONRef() *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar("$ref"), scalar("#/components/schemas/" + anyJSON)}}
}

// addAnyJSON adds the anyJSON component under components/schemas.
func addAnyJSON(doc *yaml.Node) {
	schemas := value(value(doc.Content[0], "components"), "schemas")
	self := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar(""), anyJSONRef()}}
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
