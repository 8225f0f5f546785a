package agency

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// commandsBySchema are the commands of each agency resource by the schema
// of their route.
func commandsBySchema(s *Service) map[string]map[string]agencyCommand {
	return map[string]map[string]agencyCommand{
		"agencyProfileCommand":      s.profileCommands(),
		"agencyOfferCommand":        s.offerCommands(),
		"agencyEnrollmentCommand":   s.enrollmentCommands(),
		"agencyInstallationCommand": s.installationCommands(),
	}
}

// requireInvalidBody asserts that err is the 400 of a body that is not
// JSON or failed the route's schema.
func requireInvalidBody(t *testing.T, err error) {
	t.Helper()
	var apiErr *domain.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, httpapi.Status(apiErr))
	assert.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code)
	assert.Contains(t, apiErr.Message, "request body")
}

// agencyPost validates a command's body only through the command's
// decode: a decode with nothing but a route and an invalid body (no store,
// no principal, no server) must return the body's failure.
func TestEveryCommandDecodesItsBodyFirst(t *testing.T) {
	t.Parallel()
	for schema, cmds := range commandsBySchema(&Service{}) {
		for action, cmd := range cmds {
			t.Run(action, func(t *testing.T) {
				rc := &httpapi.Ctx{Route: &httpapi.Route{Schema: schema}, Body: []byte(`{"action":"` + action + `","unknownMember":1}`)}
				_, err := cmd.decode(rc)
				requireInvalidBody(t, err)
			})
		}
	}
}

// A refusal of agencyPost (an Idempotency-Key or a scope the command needs)
// comes after the body's own failure, as when the body was validated first.
func TestAgencyPostAnswersAnInvalidBodyFirst(t *testing.T) {
	t.Parallel()
	s := &Service{}
	cmds := commandsBySchema(s)
	post := func(schema, body, key string, scopes ...string) error {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/agency-x", nil)
		if key != "" {
			r.Header.Set("Idempotency-Key", key)
		}
		rc := &httpapi.Ctx{
			Request: r, Route: &httpapi.Route{Schema: schema}, Body: []byte(body),
			Principal: &httpapi.Principal{User: &store.User{}, Key: &store.APIKey{Scopes: scopes}, Actor: domain.Actor{KeyID: "key", Scopes: scopes}},
		}
		_, err := s.agencyPost("x", cmds[schema])(rc)
		return err
	}
	refused := func(t *testing.T, err error, code string) {
		t.Helper()
		var apiErr *domain.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, code, apiErr.Code, apiErr.Message)
		assert.NotContains(t, apiErr.Message, "request body")
	}
	const uuid = "6f1c1a52-7a38-4f3a-9a62-1d2b3c4d5e6f"
	hex64 := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	enroll := `{"action":"enroll","partnerId":"` + uuid + `","sessionId":"` + uuid + `","expectedRevision":"` + uuid +
		`","fingerprint":"` + hex64 + `","approvalIds":[]}`
	refused(t, post("agencyEnrollmentCommand", enroll, ""), voiceagent.CodeInvalidRequest)
	requireInvalidBody(t, post("agencyEnrollmentCommand", `{"action":"enroll"}`, ""))
	requireInvalidBody(t, post("agencyEnrollmentCommand", `not json`, ""))

	scenarios := `{"action":"run_scenarios","partnerId":"` + uuid + `","installationId":"` + uuid + `","expectedRevision":"` + hex64 + `"}`
	refused(t, post("agencyInstallationCommand", scenarios, "", string(voiceagent.ScopeWorkspacesWrite)), voiceagent.CodeForbidden)
	requireInvalidBody(t, post("agencyInstallationCommand", `{"action":"run_scenarios"}`, "", string(voiceagent.ScopeWorkspacesWrite)))
}
