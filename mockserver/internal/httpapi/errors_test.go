package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
)

// The status table holds every error code of the SDK's root package
// (error.go), each with the status its definition names ("4xx or 5xx" is
// the spec's 500), and no other code.
func TestEveryCodeHasItsStatus(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "../../../error.go", nil, parser.ParseComments)
	require.NoError(t, err)
	leading := regexp.MustCompile(`^(\d{3}|4xx or 5xx):`)
	codes := map[string]int{}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if !strings.HasPrefix(vs.Names[0].Name, "Code") {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			require.True(t, ok, "%s is not a string", vs.Names[0])
			code, _ := strconv.Unquote(lit.Value)
			m := leading.FindStringSubmatch(vs.Comment.Text())
			require.NotNil(t, m, "the comment of %s names no status", vs.Names[0])
			status := http.StatusInternalServerError
			if m[1] != "4xx or 5xx" {
				status, _ = strconv.Atoi(m[1])
			}
			codes[code] = status
		}
	}
	require.NotEmpty(t, codes)
	assert.Equal(t, codes, statuses)
	assert.Equal(t, http.StatusInternalServerError, StatusOf("no_such_code"))
}

// errorBody decodes an error response's body.
func errorBody(t *testing.T, r *Response) map[string]any {
	t.Helper()
	var env map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &env))
	return env
}

func TestErrorResponse(t *testing.T) {
	t.Run("a domain error has its code's status", func(t *testing.T) {
		r := ErrorResponse(domain.InvalidField("to", "must be E.164"))
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, voiceagent.CodeInvalidRequest, r.Code)
		assert.Equal(t, map[string]any{"error": map[string]any{
			"code": "invalid_request", "message": "to: must be E.164",
			"details": []any{map[string]any{"path": "to", "message": "must be E.164"}},
		}}, errorBody(t, r))
		assert.False(t, r.transient)
		assert.Empty(t, r.Header)
	})
	t.Run("wrapped", func(t *testing.T) {
		r := ErrorResponse(fmt.Errorf("accounts[0]: %w", domain.Conflict("taken")))
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "taken", errorBody(t, r)["error"].(map[string]any)["message"])
	})
	t.Run("members, a result beside, no retry", func(t *testing.T) {
		e := domain.New(voiceagent.CodeProvisioningFailed, "partly")
		e.With("recovery_paths", map[string]any{"sign_in": "x"})
		e.Result, e.Final = map[string]any{"api_key": "k"}, true
		r := ErrorResponse(e)
		assert.Equal(t, http.StatusServiceUnavailable, r.Status)
		assert.Equal(t, "false", r.Header.Get(HeaderShouldRetry))
		assert.Equal(t, map[string]any{
			"error":   map[string]any{"code": "provisioning_failed", "message": "partly", "recovery_paths": map[string]any{"sign_in": "x"}},
			"api_key": "k",
		}, errorBody(t, r))
	})
	t.Run("retry after, in whole seconds up", func(t *testing.T) {
		for d, want := range map[time.Duration]string{time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", time.Hour: "3600"} {
			e := domain.New(voiceagent.CodeRateLimited, "wait")
			e.RetryAfter = d
			r := ErrorResponse(e)
			assert.Equal(t, http.StatusTooManyRequests, r.Status)
			assert.Equal(t, want, r.Header.Get("Retry-After"), d)
		}
	})
	t.Run("a dependency's failure has the status it failed with", func(t *testing.T) {
		f := &faultEntry{FaultRule: admin.FaultRule{ID: "f1", Target: admin.FaultTargetVoiceProvider, Status: http.StatusTooManyRequests}}
		fe := f.asError()
		e := &domain.Error{Code: fe.Code, Message: fe.Message, Transient: true, Cause: fe}
		e.Code, e.Message = voiceagent.CodeVendorError, "the voice provider refused: "+e.Message
		r := ErrorResponse(e)
		assert.Equal(t, http.StatusTooManyRequests, r.Status)
		assert.Equal(t, voiceagent.CodeVendorError, r.Code)
		assert.Equal(t, "1", r.Header.Get("Retry-After"))
		assert.True(t, r.transient)
		assert.Equal(t, http.StatusInternalServerError, ErrorResponse(domain.Dependency(voiceagent.CodeVendorError, "down")).Status,
			"without a cause, the table's status")
	})
	t.Run("the pipeline's own", func(t *testing.T) {
		e := newError(http.StatusUnsupportedMediaType, voiceagent.CodeInvalidRequest, "JSON only")
		e.Header = http.Header{"Accept": {"application/json"}}
		r := ErrorResponse(e)
		assert.Equal(t, http.StatusUnsupportedMediaType, r.Status)
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		assert.Equal(t, http.StatusMethodNotAllowed, ErrorResponse(&Error{Code: voiceagent.CodeMethodNotAllowed}).Status, "no status: its code's")
	})
	t.Run("anything else is an internal error", func(t *testing.T) {
		r := ErrorResponse(errors.New("disk on fire"))
		assert.Equal(t, http.StatusInternalServerError, r.Status)
		assert.Equal(t, map[string]any{"error": map[string]any{"code": "internal_error", "message": "internal error"}}, errorBody(t, r))
	})
}
