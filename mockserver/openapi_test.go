package mockserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/internal/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func get(t *testing.T, c *http.Client, url, key string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

func TestOpenAPIDocumentIsServedWithoutKey(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	resp, body := get(t, env.HTTPClient(), env.Server.URL+"/openapi.yaml", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/yaml", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))

	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(body, &doc))
	assert.Equal(t, "3.1.0", doc["openapi"])
	assert.Equal(t, "2026-06-05", doc["info"].(map[string]any)["version"])
	servers := doc["servers"].([]any)
	require.NotEmpty(t, servers)
	assert.Equal(t, env.Server.URL, servers[0].(map[string]any)["url"], "the first server is the mock the document was read from")
	assert.Contains(t, doc["paths"], "/v1/agents")
	assert.NotContains(t, string(body), "$ref: schemas/", "the served document is self-contained")
}

func TestOpenAPIContractNeedsAKey(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	resp, _ := get(t, env.HTTPClient(), env.Server.URL+"/v1/openapi.json", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	readOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []string{"calls:read"}})
	resp, body := get(t, env.HTTPClient(), env.Server.URL+"/v1/openapi.json", readOnly.APIKey)
	require.Equal(t, http.StatusOK, resp.StatusCode, "any valid key reads it, whatever its scopes")
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var fromJSON map[string]any
	require.NoError(t, json.Unmarshal(body, &fromJSON))

	_, yml := get(t, env.HTTPClient(), env.Server.URL+"/openapi.yaml", "")
	var fromYAML map[string]any
	require.NoError(t, yaml.Unmarshal(yml, &fromYAML))
	b, err := json.Marshal(fromYAML)
	require.NoError(t, err)
	var normal map[string]any
	require.NoError(t, json.Unmarshal(b, &normal))
	assert.Equal(t, normal, fromJSON, "the JSON form is the YAML document")
}
