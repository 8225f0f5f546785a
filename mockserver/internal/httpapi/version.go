package httpapi

import (
	"runtime/debug"
	"sync"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// modulePath is this module's path, under which the build information
// lists its version.
const modulePath = "github.com/voiceagent/voiceagent-go"

// Version is the mock server's version, as GET /_mock/health and the
// binary's -version show it: the module version the build information
// records (v1.2.3 for a released module, a pseudo-version for a build from
// a commit, whether this module is the main one, as in the binary, or a
// dependency, as in a user's tests); otherwise, in a build from a checkout
// that records none ("(devel)", go test), the SDK's version with -devel and
// the commit when the build knows it (v0.1.0-devel+0123456789ab, +dirty
// with uncommitted changes).
var Version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
})

// versionOf is Version for the build information bi (ok false: none).
func versionOf(bi *debug.BuildInfo, ok bool) string {
	fallback := "v" + voiceagent.Version + "-devel"
	if !ok {
		return fallback
	}
	mod := &bi.Main
	if mod.Path != modulePath {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				mod = d
				if d.Replace != nil {
					mod = d.Replace
				}
				break
			}
		}
	}
	if mod != nil && mod.Version != "" && mod.Version != "(devel)" {
		return mod.Version
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ".dirty"
			}
		}
	}
	if bi.Main.Path != modulePath || rev == "" {
		return fallback
	}
	return fallback + "+" + rev[:min(len(rev), 12)] + dirty
}
