package voiceagent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestScopesAreUniqueAndTheSubsetsAreScopes(t *testing.T) {
	t.Parallel()
	if len(AllScopes) != 38 {
		t.Errorf("%d scopes, spec section 5 lists 38", len(AllScopes))
	}
	seen := map[Scope]bool{}
	for _, s := range AllScopes {
		if seen[s] {
			t.Errorf("scope %q listed twice", s)
		}
		seen[s] = true
		if s == ScopeAll {
			t.Error("AllScopes holds the wildcard")
		}
	}
	for name, list := range map[string][]Scope{
		"PlatformOnlyScopes":  PlatformOnlyScopes,
		"SignupDefaultScopes": SignupDefaultScopes,
		"KeyDefaultScopes":    KeyDefaultScopes,
	} {
		if len(list) == 0 {
			t.Errorf("%s is empty", name)
		}
		dup := map[Scope]bool{}
		for _, s := range list {
			if !seen[s] {
				t.Errorf("%s holds %q, which is not in AllScopes", name, s)
			}
			if dup[s] {
				t.Errorf("%s lists %q twice", name, s)
			}
			dup[s] = true
		}
	}
	for _, s := range SignupDefaultScopes {
		if !strings.HasSuffix(string(s), ":read") || slices.Contains(PlatformOnlyScopes, s) {
			t.Errorf("SignupDefaultScopes is read-only and requestable, but holds %q", s)
		}
	}
}

// constants returns the string constants of one file of the package whose
// names start with prefix, in the order they are declared.
func constants(t *testing.T, file, prefix string) (names, values []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: %s is not defined by a string literal", file, n.Name)
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				names, values = append(names, n.Name), append(values, v)
			}
		}
	}
	return names, values
}

func TestEveryScopeConstantIsListedOnce(t *testing.T) {
	t.Parallel()
	names, values := constants(t, "scope.go", "Scope")
	byValue := map[string]string{}
	for i, v := range values {
		if other, ok := byValue[v]; ok {
			t.Errorf("%s and %s are both %q", names[i], other, v)
		}
		byValue[v] = names[i]
		if Scope(v) != ScopeAll && !slices.Contains(AllScopes, Scope(v)) {
			t.Errorf("%s = %q is not in AllScopes", names[i], v)
		}
	}
	if len(values) != len(AllScopes)+1 {
		t.Errorf("%d scope constants for %d scopes and the wildcard", len(values), len(AllScopes))
	}
}

// errorCodes returns the API's error codes: the Code constants of error.go,
// in the order they are declared.
func errorCodes(t *testing.T) []string {
	t.Helper()
	_, codes := constants(t, "error.go", "Code")
	return codes
}

func TestNoCodeIsDefinedTwice(t *testing.T) {
	t.Parallel()
	names, codes := constants(t, "error.go", "Code")
	if len(codes) != 29 {
		t.Errorf("%d codes, want 29", len(codes))
	}
	byValue := map[string]string{}
	for i, v := range codes {
		if v == "" || strings.ToLower(v) != v || strings.ContainsAny(v, " -:") {
			t.Errorf("%s = %q is not a snake_case code", names[i], v)
		}
		if other, ok := byValue[v]; ok {
			t.Errorf("%s and %s are both %q", names[i], other, v)
		}
		byValue[v] = names[i]
	}
}
