package mockserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
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

	readOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"calls:read"}})
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

// TestSchemaCatalogMatchesTheDocument checks that GET /v1/schemas and the served document agree:
// every schema of the catalog is a component of the document, with the same properties as the
// schema GET /v1/schemas?name= serves.
func TestSchemaCatalogMatchesTheDocument(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	_, yml := get(t, env.HTTPClient(), env.Server.URL+"/openapi.yaml", "")
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(yml, &doc))
	cat, err := env.Client.Account.Schemas(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, cat)
	for _, entry := range cat {
		if entry.Name == "common" {
			// Shared definitions only: bundled one by one, as common.<def>.
			assert.Contains(t, doc.Components.Schemas, "common.uuid")
			continue
		}
		comp, ok := doc.Components.Schemas[entry.Name]
		if !assert.True(t, ok, "GET /v1/schemas lists %s, which the served document lacks", entry.Name) {
			continue
		}
		raw, err := env.Client.Account.Schema(context.Background(), entry.Name)
		require.NoError(t, err)
		var served map[string]any
		require.NoError(t, json.Unmarshal(raw, &served))
		assert.Equal(t, keys(served["properties"]), keys(comp["properties"]), "%s: properties", entry.Name)
		assert.Equal(t, served["required"] != nil, comp["required"] != nil, "%s: required", entry.Name)
	}
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestServedDocumentsAreKeptPerURL reads the served documents twice under
// one Host name and once under another: the same URL gets the same
// bytes (cached, not built again), another names its own URL first.
func TestServedDocumentsAreKeptPerURL(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	read := func(url, host, key string) []byte {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		require.NoError(t, err)
		req.Host = host
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		return body
	}
	firstServer := func(doc []byte) string {
		var d struct {
			Servers []struct {
				URL string `yaml:"url" json:"url"`
			} `yaml:"servers" json:"servers"`
		}
		require.NoError(t, yaml.Unmarshal(doc, &d)) // JSON is YAML
		require.NotEmpty(t, d.Servers)
		return d.Servers[0].URL
	}
	for _, path := range []string{"/openapi.yaml", "/v1/openapi.json"} {
		a1 := read(srv.URL+path, "localhost:1111", acct.APIKey)
		a2 := read(srv.URL+path, "localhost:1111", acct.APIKey)
		b := read(srv.URL+path, "127.0.0.1:2222", acct.APIKey)
		assert.Equal(t, a1, a2, path)
		assert.Equal(t, "http://localhost:1111/api", firstServer(a1), path)
		assert.Equal(t, "http://127.0.0.1:2222/api", firstServer(b), path)
	}
	admin := read(srv.AdminURL+"/openapi.yaml", "localhost:3333", "")
	assert.Equal(t, "http://localhost:3333", firstServer(admin))
	assert.Equal(t, admin, read(srv.AdminURL+"/openapi.yaml", "localhost:3333", ""))
}
