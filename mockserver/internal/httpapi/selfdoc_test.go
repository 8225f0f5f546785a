package httpapi

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelfDocumentsAreBuiltOncePerURLAndBounded(t *testing.T) {
	rc := &Ctx{API: &API{}}
	built := map[string]int{}
	build := func(url string) ([]byte, error) { built[url]++; return []byte("doc for " + url), nil }
	for range 3 {
		for _, url := range []string{"http://a", "http://b"} {
			doc, err := rc.SelfDocument("openapi.yaml", "application/yaml", url, build)
			require.NoError(t, err)
			assert.Equal(t, "doc for "+url, string(doc.Body))
			assert.Equal(t, "application/yaml", doc.ContentType)
		}
	}
	assert.Equal(t, map[string]int{"http://a": 1, "http://b": 1}, built)

	_, err := rc.SelfDocument("openapi.json", "application/json", "http://a", build)
	require.NoError(t, err)
	assert.Equal(t, 2, built["http://a"], "another document is built for itself")

	_, err = rc.SelfDocument("x", "text/plain", "http://c", func(string) ([]byte, error) { return nil, fmt.Errorf("broken") })
	assert.EqualError(t, err, "broken")

	for i := range 3 * maxSelfDocuments {
		_, err := rc.SelfDocument("openapi.yaml", "application/yaml", fmt.Sprint("http://host", i), build)
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, len(rc.API.selfDocs.docs), maxSelfDocuments, "many Host names never grow it past its bound")
}
