package webhooks_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/webhooks"
)

// stringEnums returns every enum of n whose values include a string of
// want, by where it is.
func stringEnums(n *yaml.Node, where string, want []string) map[string][]string {
	out := map[string][]string{}
	var walk func(n *yaml.Node, where string)
	walk = func(n *yaml.Node, where string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, where+"/*")
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				if k == "enum" && v.Kind == yaml.SequenceNode {
					var values []string
					for _, c := range v.Content {
						values = append(values, c.Value)
					}
					if slices.ContainsFunc(values, func(s string) bool { return slices.Contains(want, s) }) {
						out[where] = values
					}
					continue
				}
				walk(v, where+"/"+k)
			}
		}
	}
	walk(n, where)
	return out
}

// TestEventTypesAreTheOpenAPIEnum holds every enum of event types in the
// OpenAPI documents and their JSON Schemas equal to webhooks.EventTypes,
// the one Go list.
func TestEventTypesAreTheOpenAPIEnum(t *testing.T) {
	t.Parallel()
	var want []string
	for _, et := range webhooks.EventTypes() {
		want = append(want, string(et))
	}
	files := []string{"../openapi/openapi.yaml", "../openapi/admin.yaml"}
	for _, dir := range []string{"../openapi/schemas", "../openapi/adminschemas"} {
		more, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(more) == 0 {
			t.Fatalf("no schemas in %s: %v", dir, err)
		}
		files = append(files, more...)
	}
	found := 0
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(b, &root); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for where, values := range stringEnums(&root, name, want) {
			found++
			if !slices.Equal(values, want) {
				t.Errorf("%s: the event types are\n%v\nwant (webhooks.EventTypes)\n%v", where, values, want)
			}
		}
	}
	if found == 0 {
		t.Error("no enum of event types in the OpenAPI documents")
	}
}
