package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Document is openapi.yaml as written: an OpenAPI 3.1 document whose request bodies reference
// the files of schemas/ by relative path ("schemas/callCreate.json"). A tool reading it from a
// checkout of the repository resolves those references against the file's directory; over HTTP,
// use [Bundled] (what the mock server serves at GET /api/openapi.yaml).
//
//go:embed openapi.yaml
var Document []byte

// refPrefix starts every reference of openapi.yaml to a schema file;
// adminRefPrefix every reference of admin.yaml to one.
const (
	refPrefix      = "schemas/"
	adminRefPrefix = "adminschemas/"
)

// AdminDocument is admin.yaml as written: the OpenAPI 3.1 description of the mock server's admin
// API (/_mock), whose request bodies reference the files of adminschemas/ by relative path. Over
// HTTP, use [BundledAdmin] (what the mock server serves at GET /_mock/openapi.yaml).
//
//go:embed admin.yaml
var AdminDocument []byte

// ComponentName returns the name under components/schemas that [Bundled] gives to a schema of
// schemas/ (def empty) or to one of its $defs: "callCreate", "communicationRunCreate.touch",
// "common.e164".
func ComponentName(schema, def string) string {
	if def == "" {
		return schema
	}
	return schema + "." + def
}

// bundledTree is openapi.yaml with every schema file it references, directly or through another
// schema, copied under components/schemas, and every reference rewritten to point there.
var bundledTree = sync.OnceValues(func() (*yaml.Node, error) {
	return bundle(Document, "openapi.yaml", refPrefix, Schema)
})

// bundledAdminTree is admin.yaml bundled the same way: the admin schemas it references and the
// API's schemas those reference (common.json) copied under components/schemas.
var bundledAdminTree = sync.OnceValues(func() (*yaml.Node, error) {
	return bundle(AdminDocument, "admin.yaml", adminRefPrefix, func(name string) ([]byte, bool) {
		if raw, ok := AdminSchema(name); ok {
			return raw, true
		}
		return Schema(name)
	})
})

// Bundled returns the self-contained document: openapi.yaml with the request body schemas copied
// under components/schemas and every reference internal. Each schema of schemas/ that the
// document references becomes the component [ComponentName](name, "") without its $id, $schema
// and $defs, and each of the $defs referenced, directly or through another component, the
// component [ComponentName](name, def). serverURL, when not empty, becomes the first entry of
// servers (the mock server passes its own base URL, so API explorers try requests against it).
func Bundled(serverURL string) ([]byte, error) { return encodeBundled(bundledTree, serverURL) }

// BundledAdmin returns admin.yaml self-contained, as [Bundled] does openapi.yaml: the admin body
// schemas (and the shared definitions they use) copied under components/schemas, serverURL, when
// not empty, the first entry of servers. The mock server serves it at GET /_mock/openapi.yaml.
func BundledAdmin(serverURL string) ([]byte, error) {
	return encodeBundled(bundledAdminTree, serverURL)
}

// encodeBundled encodes a bundled tree as YAML with serverURL first in its servers.
func encodeBundled(tree func() (*yaml.Node, error), serverURL string) ([]byte, error) {
	root, err := tree()
	if err != nil {
		return nil, err
	}
	if serverURL != "" {
		root = withServer(root, serverURL)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("openapi: encoding the bundled document: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("openapi: encoding the bundled document: %w", err)
	}
	return buf.Bytes(), nil
}

// BundledJSON is [Bundled] as JSON.
func BundledJSON(serverURL string) ([]byte, error) {
	y, err := Bundled(serverURL)
	if err != nil {
		return nil, err
	}
	var v any
	if err := yaml.Unmarshal(y, &v); err != nil {
		return nil, fmt.Errorf("openapi: decoding the bundled document: %w", err)
	}
	return json.Marshal(v)
}

// withServer returns a copy of the document node whose servers list starts with url. Nodes are
// shared with the cached tree, which is never modified.
func withServer(doc *yaml.Node, url string) *yaml.Node {
	top := *doc.Content[0]
	top.Content = append([]*yaml.Node(nil), top.Content...)
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "servers" {
			continue
		}
		old := top.Content[i+1]
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		list.Content = append(list.Content, mapping(
			"url", url,
			"description", "This mock server (the address this document was read from).",
		))
		for _, s := range old.Content {
			if v := lookup(s, "url"); v == nil || v.Value != url {
				list.Content = append(list.Content, s)
			}
		}
		top.Content[i+1] = list
	}
	out := *doc
	out.Content = []*yaml.Node{&top}
	return &out
}

func mapping(kv ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, s := range kv {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s})
	}
	return m
}

// lookup returns the value of key in a mapping node, nil if absent.
func lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// bundle does the work of [Bundled] on the source document src (called name in errors), whose
// references to schema files start with prefix; schema reads a schema file by name.
func bundle(src []byte, name, prefix string, schema func(string) ([]byte, bool)) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("openapi: parsing %s: %w", name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("openapi: %s is not a mapping", name)
	}
	b := &bundler{files: map[string]*schemaFile{}, queued: map[string]bool{}, schema: schema}
	b.rewrite(&doc, func(ref string) (string, error) {
		file, ok := strings.CutPrefix(ref, prefix)
		if !ok {
			if strings.HasPrefix(ref, "#") {
				return ref, nil
			}
			return "", fmt.Errorf("reference %q is neither internal nor to %s", ref, prefix)
		}
		return b.fileRef("", file)
	})
	if b.err != nil {
		return nil, b.err
	}
	comps := lookup(doc.Content[0], "components")
	schemas := lookup(comps, "schemas")
	if schemas == nil {
		return nil, fmt.Errorf("openapi: %s has no components/schemas", name)
	}
	added := map[string]*yaml.Node{}
	for len(b.queue) > 0 {
		name := b.queue[0]
		b.queue = b.queue[1:]
		node, err := b.component(name)
		if err != nil {
			return nil, err
		}
		added[name] = node
	}
	names := make([]string, 0, len(added))
	for n := range added {
		if lookup(schemas, n) != nil {
			return nil, fmt.Errorf("openapi: component %s is both written and bundled", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		schemas.Content = append(schemas.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: n}, added[n])
	}
	return &doc, nil
}

// bundler collects the components a document needs: each schema file, or one of its $defs, that
// is referenced, directly or through another component.
type bundler struct {
	files  map[string]*schemaFile
	queued map[string]bool
	queue  []string
	err    error
	schema func(name string) ([]byte, bool) // reads a schema file
}

// schemaFile is a schema of schemas/ split into its root (without $id, $schema and $defs) and
// its $defs.
type schemaFile struct {
	root *yaml.Node
	defs map[string]*yaml.Node
}

// fileRef maps a reference to file (with an optional #fragment), made from inside schema from
// ("" for openapi.yaml), to its bundled form, and queues the component it points into.
func (b *bundler) fileRef(from, ref string) (string, error) {
	file, frag, _ := strings.Cut(ref, "#")
	name := from
	if file != "" {
		n, ok := strings.CutSuffix(file, ".json")
		if !ok || strings.ContainsAny(n, "/\\") {
			return "", fmt.Errorf("reference %q is not to a schema file", ref)
		}
		if _, ok := b.schema(n); !ok {
			return "", fmt.Errorf("reference %q names no schema file", ref)
		}
		name = n
	}
	if name == "" {
		return "", fmt.Errorf("reference %q has no file", ref)
	}
	comp, rest := name, frag
	if def, ok := strings.CutPrefix(frag, "/$defs/"); ok {
		d, r, _ := strings.Cut(def, "/")
		comp, rest = ComponentName(name, d), ""
		if r != "" {
			rest = "/" + r
		}
	} else if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", fmt.Errorf("reference %q: only JSON Pointer fragments are supported", ref)
	}
	if !b.queued[comp] {
		b.queued[comp] = true
		b.queue = append(b.queue, comp)
	}
	return "#/components/schemas/" + comp + rest, nil
}

// component returns the node of a queued component with its references rewritten (which
// queues the components they point into).
func (b *bundler) component(comp string) (*yaml.Node, error) {
	name, def, _ := strings.Cut(comp, ".")
	f, err := b.file(name)
	if err != nil {
		return nil, err
	}
	node := f.root
	if def != "" {
		if node = f.defs[def]; node == nil {
			return nil, fmt.Errorf("openapi: schema %s has no $defs/%s", name, def)
		}
	}
	b.rewrite(node, func(ref string) (string, error) { return b.fileRef(name, ref) })
	if b.err != nil {
		return nil, fmt.Errorf("openapi: schema %s: %w", name, b.err)
	}
	blockStyle(node)
	return node, nil
}

// file parses schema name once.
func (b *bundler) file(name string) (*schemaFile, error) {
	if f, ok := b.files[name]; ok {
		return f, nil
	}
	raw, _ := b.schema(name)
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("openapi: parsing schema %s: %w", name, err)
	}
	root := doc.Content[0]
	f := &schemaFile{root: root, defs: map[string]*yaml.Node{}}
	kept := root.Content[:0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "$id", "$schema":
			continue
		case "$defs":
			for j := 0; j+1 < len(v.Content); j += 2 {
				f.defs[v.Content[j].Value] = v.Content[j+1]
			}
			continue
		}
		kept = append(kept, k, v)
	}
	root.Content = kept
	b.files[name] = f
	return f, nil
}

// rewrite replaces the value of every "$ref" under n by fn(value); the first error stops it.
func (b *bundler) rewrite(n *yaml.Node, fn func(string) (string, error)) {
	if b.err != nil {
		return
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				nv, err := fn(v.Value)
				if err != nil {
					b.err = err
					return
				}
				v.Value = nv
				continue
			}
			b.rewrite(v, fn)
		}
		return
	}
	for _, c := range n.Content {
		b.rewrite(c, fn)
	}
}

// blockStyle drops the flow style JSON parses into, so schemas print as block YAML; strings keep
// their tag, and the encoder quotes the ones that would read as another type.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
