package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

var versionHeading = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+[^\]]*)\]`)

// TestChangelogNamesTheVersion keeps the changelog and the version the SDK
// sends in its User-Agent together: the newest version of CHANGELOG.md is
// voiceagent.Version.
func TestChangelogNamesTheVersion(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := versionHeading.FindSubmatch(b)
	if m == nil {
		t.Fatal("CHANGELOG.md has no version heading (## [x.y.z] - date)")
	}
	if got := string(m[1]); got != voiceagent.Version {
		t.Errorf("the newest version in CHANGELOG.md is %s, voiceagent.Version is %s", got, voiceagent.Version)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(voiceagent.Version) {
		t.Errorf("voiceagent.Version %q is not a semantic version", voiceagent.Version)
	}
}
