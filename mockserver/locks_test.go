package mockserver

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lockComment is what a comment says when it stands in for a lock: that a
// field is guarded by one, or that the caller holds one.
var lockComment = regexp.MustCompile(`(?i)guarded\s+by|mu\s+guards|callers?\s+(holds|must\s+hold)\s+((the|a|its)\s+)?(\w+'s\s+)?(lock|mutex|mu)\b|holds\s+the\s+lock|with\s+the\s+lock\s+held`)

// TestNoCommentStandsInForALock keeps locks proven by code: state is
// reached through a platform.Tx (or a platform.Guarded value), and a type
// with a lock of its own takes it in its methods, so no comment of the
// mock server has to say that a field is guarded or that a caller holds
// a lock.
func TestNoCommentStandsInForALock(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, group := range file.Comments {
			if m := lockComment.FindString(group.Text()); m != "" {
				t.Errorf("%s: a comment says %q: prove the lock in code (a Tx, or a type whose methods take its own lock)\n%s", path, m, group.Text())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
