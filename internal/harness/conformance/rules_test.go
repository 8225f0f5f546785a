package conformance_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
)

// TestRulesReexpressedForGeneratorsHoldAtTheMock sends, through the mock server, bodies that
// break the rules the schemas now state in forms code generators read (a property left out
// instead of a false subschema, a oneOf of typed schemas instead of a type list, an alias
// with x-go-name), and checks that the mock still refuses them, and still accepts what they
// allow.
func TestRulesReexpressedForGeneratorsHoldAtTheMock(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	hc := env.HTTPClient()
	send := func(t *testing.T, path, body string, withKey bool) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, env.Server.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if withKey {
			req.Header.Set("Authorization", "Bearer "+env.Account.APIKey)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
		return resp.StatusCode, out
	}
	refused := func(t *testing.T, path, body string, withKey bool, code, mentions string) {
		t.Helper()
		status, out := send(t, path, body, withKey)
		require.Equal(t, http.StatusBadRequest, status, "%v", out)
		e, _ := out["error"].(map[string]any)
		assert.Equal(t, code, e["code"])
		details, _ := json.Marshal(e["details"])
		assert.Contains(t, e["message"].(string)+string(details), mentions)
	}
	const signup = `"business_name": "Rules Plumbing", "email": "owner@rules.example"`

	t.Run("signup request step with challenge_id", func(t *testing.T) {
		// A challenge_id makes the body a verify step, which needs otp_code.
		refused(t, "/v1/signup", `{`+signup+`, "challenge_id": "c-1"}`, false, "validation_error", "otp_code")
	})
	t.Run("signup request step with otp_code", func(t *testing.T) {
		refused(t, "/v1/signup", `{`+signup+`, "otp_code": "123456"}`, false, "validation_error", "challenge_id")
	})
	t.Run("signup payment mode with api_key_scopes", func(t *testing.T) {
		refused(t, "/v1/signup", `{`+signup+`, "activation_mode": "payment", "api_key_scopes": ["calls:read"]}`,
			false, "validation_error", "api_key_scopes")
	})
	t.Run("signup payment mode with challenge_id", func(t *testing.T) {
		refused(t, "/v1/signup", `{`+signup+`, "activation_mode": "payment", "challenge_id": "c-1"}`,
			false, "validation_error", "challenge_id")
	})
	t.Run("signup request step with scopes", func(t *testing.T) {
		status, out := send(t, "/v1/signup", `{`+signup+`, "api_key_scopes": ["calls:read"]}`, false)
		assert.Equal(t, http.StatusOK, status, "%v", out)
		assert.Equal(t, "otp_sent", out["status"])
	})

	call := `"agent_id": "` + env.Account.AgentID + `", "to": "+15551230001"`
	t.Run("call with both first message aliases", func(t *testing.T) {
		refused(t, "/v1/calls", `{`+call+`, "firstMessage": "Hi", "first_message": "Hello"}`, true, "invalid_request", "/")
	})
	t.Run("call with the snake-case alias alone", func(t *testing.T) {
		status, out := send(t, "/v1/calls", `{`+call+`, "first_message": "Hello"}`, true)
		assert.Equal(t, http.StatusCreated, status, "%v", out)
	})

	hook := `"business_id": "` + env.Account.BusinessID + `", "webhook_url": "https://hooks.rules.example/in"`
	for _, bad := range []string{`{}`, `[1]`} {
		t.Run("template constant "+bad, func(t *testing.T) {
			refused(t, "/v1/webhooks", `{`+hook+`, "payload_template": {"fields": {"x": {"value": `+bad+`}}}}`,
				true, "invalid_request", "/payload_template/fields/x/value")
		})
	}
	t.Run("template constants of every type", func(t *testing.T) {
		status, out := send(t, "/v1/webhooks", `{`+hook+`, "payload_template": {"fields": {"s": {"value": "x"},
			"n": {"value": 1.5}, "t": {"value": true}, "z": {"value": null}, "p": "data.id"}}}`, true)
		require.Equal(t, http.StatusCreated, status, "%v", out)
		fields := out["payload_template"].(map[string]any)["fields"].(map[string]any)
		assert.Equal(t, map[string]any{"value": 1.5}, fields["n"])
		assert.Equal(t, map[string]any{"value": nil}, fields["z"])
	})
}
