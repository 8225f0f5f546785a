package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/openapi"
)

// adminRoute is an operation of the admin OpenAPI document: its method and
// path.
type adminRoute struct{ method, path string }

// adminRoutes returns every operation of openapi/admin.yaml.
func adminRoutes(t *testing.T) []adminRoute {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(openapi.AdminDocument, &doc); err != nil {
		t.Fatalf("admin.yaml: %v", err)
	}
	var out []adminRoute
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options":
				out = append(out, adminRoute{strings.ToUpper(method), path})
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("admin.yaml has no operations")
	}
	slices.SortFunc(out, func(a, b adminRoute) int { return strings.Compare(a.path+" "+a.method, b.path+" "+b.method) })
	return out
}

// routeSpan is a route in a table cell: `METHOD /path?query`, the query
// and a trailing description left out.
var routeSpan = regexp.MustCompile("`(GET|POST|PUT|PATCH|DELETE) (/[^`?\\s]*)[^`]*`")

// TestMockGuideAdminTableListsEveryAdminRoute keeps the guide's admin table
// (section Admin API) equal to openapi/admin.yaml: every operation of the
// document has a row naming its method and path, and every route the
// table names is an operation of the document.
func TestMockGuideAdminTableListsEveryAdminRoute(t *testing.T) {
	sec := readGuide(t).section(t, "Admin API")
	tbs := tables(t, sec.body)
	var table *mdTable
	for i := range tbs {
		if len(tbs[i].header) > 0 && tbs[i].header[0] == "route" {
			table = &tbs[i]
		}
	}
	if table == nil {
		t.Fatal("the Admin API section has no table whose first column is route")
	}
	listed := map[adminRoute]bool{}
	for _, row := range table.rows {
		for _, m := range routeSpan.FindAllStringSubmatch(row[0]+" "+row[1], -1) {
			listed[adminRoute{m[1], m[2]}] = true
		}
	}
	routes := adminRoutes(t)
	inDoc := map[adminRoute]bool{}
	for _, r := range routes {
		inDoc[r] = true
		if !listed[r] {
			t.Errorf("the guide's admin table (%s, section Admin API) has no row for %s %s of openapi/admin.yaml", guidePath, r.method, r.path)
		}
	}
	var extra []string
	for r := range listed {
		if !inDoc[r] {
			extra = append(extra, r.method+" "+r.path)
		}
	}
	slices.Sort(extra)
	for _, r := range extra {
		t.Errorf("the guide's admin table names %s, which openapi/admin.yaml does not have", r)
	}
}

// TestLicenseIsMIT keeps the LICENSE file, the licence the OpenAPI
// documents declare and the image's licence label the same: MIT.
func TestLicenseIsMIT(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "MIT License\n") || !strings.Contains(string(b), "Copyright (c) ") {
		t.Errorf("LICENSE is not the MIT License with a copyright line")
	}
	for name, doc := range map[string][]byte{"openapi.yaml": openapi.Document, "admin.yaml": openapi.AdminDocument} {
		var d struct {
			Info struct {
				License struct {
					Identifier string `yaml:"identifier"`
				} `yaml:"license"`
			} `yaml:"info"`
		}
		if err := yaml.Unmarshal(doc, &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Info.License.Identifier != "MIT" {
			t.Errorf("%s declares the licence %q, LICENSE is MIT", name, d.Info.License.Identifier)
		}
	}
	df, err := os.ReadFile(filepath.Join("..", "..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(df), "ARG LICENSES=MIT") {
		t.Error("the Dockerfile's licence label is not MIT (ARG LICENSES=MIT)")
	}
}
