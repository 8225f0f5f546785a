package voiceagent

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// An OpenAPI or JSON Schema document of openapi/, parsed (JSON is YAML).
type document struct {
	name string
	root *yaml.Node
}

// documents parses every document of openapi/: the two OpenAPI documents
// and the JSON Schemas of request bodies they reference.
func documents(t *testing.T) []document {
	t.Helper()
	names := []string{"openapi/openapi.yaml", "openapi/admin.yaml"}
	for _, dir := range []string{"openapi/schemas", "openapi/adminschemas"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no schemas in %s: %v", dir, err)
		}
		names = append(names, files...)
	}
	var out []document
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(b, &root); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, document{name, &root})
	}
	return out
}

// member returns the value of key in mapping node n, or nil.
func member(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// at follows a path of member names from n.
func at(n *yaml.Node, path ...string) *yaml.Node {
	for _, k := range path {
		n = member(n, k)
	}
	return n
}

// enum is one enum keyword of a document: where it is and its values.
type enum struct {
	where  string
	values []string
}

// enums returns every enum of n whose values are all strings.
func enums(n *yaml.Node, where string) []enum {
	var out []enum
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			out = append(out, enums(c, where+"/"+strconv.Itoa(i))...)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k == "enum" && v.Kind == yaml.SequenceNode {
				e := enum{where: where}
				for _, c := range v.Content {
					e.values = append(e.values, c.Value)
				}
				out = append(out, e)
				continue
			}
			out = append(out, enums(v, where+"/"+k)...)
		}
	}
	return out
}

func scopeStrings(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// TestOpenAPIEnumsAreTheGoLists holds every enum of scopes and of error
// codes in the OpenAPI documents and the JSON Schemas equal to the one Go
// definition of each (AllScopes and its subsets, the Code constants), and
// every scope an operation requires to a scope of AllScopes.
func TestOpenAPIEnumsAreTheGoLists(t *testing.T) {
	t.Parallel()
	all := scopeStrings(AllScopes)
	requestable := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return slices.Contains(PlatformOnlyScopes, Scope(s)) })
	codes := errorCodes(t)
	// The scope enums, by where they are: each equals its Go list, but the
	// scopes POST /v1/keys accepts, which only that schema defines (a
	// subset of AllScopes).
	wantScopes := map[string][]string{
		"openapi/openapi.yaml /0/components/schemas/Scope": append([]string{string(ScopeAll)}, all...),
		"openapi/schemas/common.json /0/$defs/scope":       all,
		"openapi/schemas/common.json /0/$defs/signupScope": requestable,
	}
	const keyCreateScopes = "openapi/schemas/common.json /0/$defs/keyCreateScope"
	wantCodes := map[string][]string{
		"openapi/openapi.yaml /0/components/schemas/ErrorCode":   codes,
		"openapi/admin.yaml /0/components/schemas/ErrorCode":     codes,
		"openapi/adminschemas/mockFault.json /0/properties/code": append([]string{""}, codes...),
	}
	seen := map[string]bool{}
	for _, doc := range documents(t) {
		for _, e := range enums(doc.root, "") {
			where := doc.name + " " + e.where
			isScopes := slices.ContainsFunc(e.values, func(v string) bool { return slices.Contains(all, v) })
			switch {
			case wantCodes[where] != nil:
				seen[where] = true
				if want := wantCodes[where]; !slices.Equal(e.values, want) {
					t.Errorf("%s: the error codes are\n%v\nwant (from error.go)\n%v", where, e.values, want)
				}
			case isScopes && where == keyCreateScopes:
				seen[where] = true
				for _, v := range e.values {
					if !slices.Contains(all, v) {
						t.Errorf("%s: %q is not in AllScopes", where, v)
					}
				}
			case isScopes:
				want, ok := wantScopes[where]
				if !ok {
					t.Errorf("%s is an enum of scopes this test does not know: hold it equal to a Go list here", where)
					continue
				}
				seen[where] = true
				if !slices.Equal(e.values, want) {
					t.Errorf("%s: the scopes are\n%v\nwant (from scope.go)\n%v", where, e.values, want)
				}
			case slices.ContainsFunc(e.values, func(v string) bool { return slices.Contains(codes, v) }) && slices.Contains(e.values, CodeInvalidRequest):
				t.Errorf("%s looks like an enum of error codes this test does not know: hold it equal to error.go here", where)
			}
		}
	}
	for where := range wantScopes {
		if !seen[where] {
			t.Errorf("no enum of scopes at %s", where)
		}
	}
	for where := range wantCodes {
		if !seen[where] {
			t.Errorf("no enum of error codes at %s", where)
		}
	}
	if !seen[keyCreateScopes] {
		t.Errorf("no enum of scopes at %s", keyCreateScopes)
	}

	// Every scope an operation requires is a scope.
	doc := documents(t)[0]
	for path, item := range pairs(at(doc.root.Content[0], "paths")) {
		for method, op := range pairs(item) {
			for _, req := range scopeNames(member(op, "x-required-scopes")) {
				if !slices.Contains(all, req) {
					t.Errorf("%s %s requires %q, which is not in AllScopes", method, path, req)
				}
			}
		}
	}
}

// pairs returns the members of a mapping node.
func pairs(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	return out
}

// scopeNames returns every string of an x-required-scopes value, at any
// depth ({anyOf: [...]} included).
func scopeNames(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			out = append(out, scopeNames(c)...)
		}
		return out
	case yaml.MappingNode:
		var out []string
		for i := 1; i < len(n.Content); i += 2 {
			out = append(out, scopeNames(n.Content[i])...)
		}
		return out
	}
	return nil
}

// TestOpenAPIRateLimitsAreTheGoList holds every rate limit an operation of
// openapi.yaml states ("60 requests per minute") equal to the limit of
// wire.Limits that applies to it, and every limit of a path of its own
// stated by an operation it applies to.
func TestOpenAPIRateLimitsAreTheGoList(t *testing.T) {
	t.Parallel()
	stated := regexp.MustCompile(`(\d+) requests per (minute|hour)`)
	doc := documents(t)[0]
	told := map[string]bool{}
	for path, item := range pairs(at(doc.root.Content[0], "paths")) {
		for method, op := range pairs(item) {
			desc := member(op, "description")
			if desc == nil {
				continue
			}
			m := stated.FindStringSubmatch(desc.Value)
			if m == nil {
				continue
			}
			name := strings.ToUpper(method) + " " + path
			l, ok := wire.LimitFor(strings.ToUpper(method), path)
			if !ok {
				t.Errorf("%s states %s, but wire.Limits has no limit for it", name, m[0])
				continue
			}
			told[l.Name] = true
			window := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour}[m[2]]
			if got := fmt.Sprintf("%s per %v", m[1], window); got != fmt.Sprintf("%d per %v", l.Max, l.Window) {
				t.Errorf("%s states %s; wire.Limits (%s) says %d per %v", name, m[0], l.Name, l.Max, l.Window)
			}
		}
	}
	for _, l := range wire.Limits {
		if l.Path != "" && !told[l.Name] {
			t.Errorf("no operation of openapi.yaml states the limit %s (%d per %v)", l.Name, l.Max, l.Window)
		}
	}
}

// OpenAPIEnums returns every enum of strings in the documents of openapi/,
// by where it is ("openapi/openapi.yaml /0/components/..."): the one walk
// of the documents' enums, for the tests of package voiceagent_test that
// hold another package's list to them (eventtypes_test.go).
func OpenAPIEnums(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, doc := range documents(t) {
		for _, e := range enums(doc.root, "") {
			out[doc.name+" "+e.where] = e.values
		}
	}
	return out
}
