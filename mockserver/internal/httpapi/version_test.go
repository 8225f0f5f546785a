package httpapi

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

func TestVersionOf(t *testing.T) {
	dev := "v" + voiceagent.Version + "-devel"
	assert.Equal(t, dev, versionOf(nil, false), "no build information")
	assert.Equal(t, "v1.4.0", versionOf(&debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.4.0"}}, true),
		"the binary of a released module (go install ...@v1.4.0)")
	assert.Equal(t, "v1.3.0", versionOf(&debug.BuildInfo{
		Main: debug.Module{Path: "example.com/app", Version: "(devel)"},
		Deps: []*debug.Module{{Path: "golang.org/x/time", Version: "v0.5.0"}, {Path: modulePath, Version: "v1.3.0"}},
	}, true), "a user's tests: the version of the dependency")
	assert.Equal(t, "v1.3.1", versionOf(&debug.BuildInfo{
		Main: debug.Module{Path: "example.com/app"},
		Deps: []*debug.Module{{Path: modulePath, Version: "v1.3.0", Replace: &debug.Module{Path: modulePath, Version: "v1.3.1"}}},
	}, true), "a replaced dependency: the replacement's version")
	assert.Equal(t, dev+"+0123456789ab.dirty", versionOf(&debug.BuildInfo{
		Main:     debug.Module{Path: modulePath, Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}},
	}, true), "a build from a modified checkout")
	assert.Equal(t, dev, versionOf(&debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, true), "go test: no revision")
	assert.Equal(t, dev, versionOf(&debug.BuildInfo{
		Main:     debug.Module{Path: "example.com/app", Version: "(devel)"},
		Deps:     []*debug.Module{{Path: modulePath, Version: "(devel)"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "feedfacefeedface"}},
	}, true), "another module's revision is not ours")
	assert.NotEmpty(t, Version())
}
