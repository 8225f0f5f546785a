package mockserver

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// TestNoExportedAliasOfInternalTypes fails when an exported type of the
// package is an alias of a type of an internal package: go doc would show
// no fields for it, and its methods would be documented elsewhere.
func TestNoExportedAliasOfInternalTypes(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]bool{} // local names of internal imports
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(path, "/internal/") && !strings.HasSuffix(path, "/internal") {
				continue
			}
			local := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			internal[local] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			checked++
			if !ts.Name.IsExported() || !ts.Assign.IsValid() {
				return true
			}
			ast.Inspect(ts.Type, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
						t.Errorf("%s: type %s is an alias of %s.%s, an internal type: define it here with its fields",
							fset.Position(ts.Pos()), ts.Name.Name, id.Name, sel.Sel.Name)
					}
				}
				return true
			})
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no type declaration found: the test parses nothing")
	}
}

// TestPublicConstantsMatchDomains checks the constants the package defines
// for the domains' values.
func TestPublicConstantsMatchDomains(t *testing.T) {
	for _, c := range []struct{ public, internal any }{
		{string(ConsentOptedIn), telephony.ConsentOptedIn},
		{string(ConsentOptedOut), telephony.ConsentOptedOut},
		{string(ConsentNone), telephony.ConsentNone},
		{string(DeliveryPending), store.DeliveryPending},
		{string(DeliverySucceeded), store.DeliverySucceeded},
		{string(DeliveryFailed), store.DeliveryFailed},
		{string(DeliveryCanceled), store.DeliveryCanceled},
		{string(DeliveryKindSubscription), store.DeliverySubscription},
		{string(DeliveryKindCallWebhook), store.DeliveryCallWebhook},
		{string(DeliveryKindApprovalCallback), store.DeliveryApprovalCallback},
		{ErrDeliveryNotFound.Error(), hooks.ErrDeliveryNotFound.Error()},
		{ErrDeliveryNotReplayable.Error(), hooks.ErrDeliveryNotReplayable.Error()},
	} {
		if c.public != c.internal {
			t.Errorf("constant %v, the domain's is %v", c.public, c.internal)
		}
	}
}

// TestHelperErrors checks that the helpers' refusals are *Error values
// with the status, code and fields of the matching admin route.
func TestHelperErrors(t *testing.T) {
	s := New()
	defer s.Close()
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const unknown = "00000000-0000-4000-8000-000000000000"
	for _, c := range []struct {
		name   string
		err    error
		status int
		code   string
		path   string // a path of Details, if any
		is     error
	}{
		{name: "fault rule with no effect", err: second(s.AddFault(FaultRule{Path: "/v1/calls"})),
			status: 400, code: "invalid_request"},
		{name: "fault rule on no route", err: second(s.AddFault(FaultRule{Path: "/v1/nothing", Status: 500})),
			status: 400, code: "invalid_request", path: "path"},
		{name: "fault rule of an unknown business", err: second(acctFault(s, unknown)),
			status: 404, code: "not_found"},
		{name: "unknown scope", err: second(s.NewAccount(AccountOptions{Scopes: []voiceagent.Scope{"nothing:write"}})),
			status: 400, code: "invalid_request", path: "scopes"},
		{name: "event of an unknown business", err: second(s.EmitEvent(unknown, "call.completed", nil)),
			status: 404, code: "not_found"},
		{name: "unknown event type", err: second(s.EmitEvent(acct.BusinessID, "call.nothing", nil)),
			status: 400, code: "invalid_request", path: "event"},
		{name: "inbound call to no number", err: second(s.InboundCall(InboundCall{To: "+15550000000", From: "+15551112222"})),
			status: 404, code: "not_found"},
		{name: "bad lead fixture", err: second(s.SeedLeads(acct.BusinessID, []LeadFixture{{Status: "nothing"}})),
			status: 400, code: "invalid_request"},
		{name: "fixtures with an unknown scope", err: second(s.LoadFixtures(Fixtures{Accounts: []FixtureAccount{{Scopes: []voiceagent.Scope{"nothing:write"}}}})),
			status: 400, code: "invalid_request"},
		{name: "unknown delivery", err: second(s.ReplayDelivery("d_nothing")),
			status: 404, code: "not_found", is: ErrDeliveryNotFound},
		{name: "consent of an unknown business", err: s.SetConsent(unknown, "+15551112222", ConsentOptedIn),
			status: 404, code: "not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e *Error
			if !errors.As(c.err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", c.err, c.err)
			}
			if e.Status != c.status || e.Code != c.code {
				t.Errorf("got %d %s, want %d %s (%v)", e.Status, e.Code, c.status, c.code, e)
			}
			if c.path != "" && !slicesContainsPath(e.Details, c.path) {
				t.Errorf("details %v name no %s", e.Details, c.path)
			}
			if c.is != nil && !errors.Is(c.err, c.is) {
				t.Errorf("error %v is not %v", c.err, c.is)
			}
		})
	}
}

func acctFault(s *Server, businessID string) (FaultRule, error) {
	return s.AddFault(FaultRule{BusinessID: businessID, Status: http.StatusServiceUnavailable})
}

func second[T any](_ T, err error) error { return err }

func slicesContainsPath(ds []ErrorDetail, path string) bool {
	for _, d := range ds {
		if strings.Contains(d.Path, path) {
			return true
		}
	}
	return false
}
