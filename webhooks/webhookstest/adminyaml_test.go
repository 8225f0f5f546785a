package webhookstest_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

// TestAdminYAMLListsTheCheckIDs holds the check ids admin.yaml documents
// (ReceiverCheck.id) equal to CheckIDs, the one Go list.
func TestAdminYAMLListsTheCheckIDs(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../openapi/admin.yaml")
	require.NoError(t, err)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `yaml:"enum"`
				} `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(b, &doc))
	assert.Equal(t, webhookstest.CheckIDs(), doc.Components.Schemas["ReceiverCheck"].Properties["id"].Enum)
}
