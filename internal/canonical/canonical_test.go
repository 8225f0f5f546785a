package canonical

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONSortsKeysAndDropsWhitespace(t *testing.T) {
	got, err := JSON(json.RawMessage(`{ "b": [3, 1.50, 1e2], "a": {"z": "<&>", "y": null}, "c": 10000000000000000000000 }`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":{"y":null,"z":"<&>"},"b":[3,1.5,100],"c":1e+22}`, string(got))
}

func TestFingerprintIsIndependentOfKeyOrderAndSpacing(t *testing.T) {
	a, err := Fingerprint(json.RawMessage(`{"x": 1, "y": [true, "s"]}`))
	require.NoError(t, err)
	b, err := Fingerprint(map[string]any{"y": []any{true, "s"}, "x": 1.0})
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Regexp(t, `^[0-9a-f]{64}$`, a)
	c, err := Fingerprint(json.RawMessage(`{"x": 2, "y": [true, "s"]}`))
	require.NoError(t, err)
	assert.NotEqual(t, a, c)
	_, err = Fingerprint(json.RawMessage(`{`))
	assert.Error(t, err)
}
