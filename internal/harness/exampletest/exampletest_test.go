package exampletest

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestAssertSteps(t *testing.T) {
	t.Parallel()
	out := "one\ntwo\nthree\n"
	var ok recorder
	AssertSteps(&ok, out, "one", "three")
	assert.Empty(t, ok.errs)

	var order recorder
	AssertSteps(&order, out, "three", "one", "two")
	if assert.Len(t, order.errs, 1, "only the first missing step is reported") {
		assert.Contains(t, order.errs[0], `"one"`)
		assert.Contains(t, order.errs[0], "in:\none\ntwo")
	}

	var twice recorder
	AssertSteps(&twice, out, "two", "two")
	assert.Len(t, twice.errs, 1, "a step is found once")
}

func TestOutputAndEnvironment(t *testing.T) {
	UseService(t, "http://127.0.0.1:1/api", "k")
	assert.Equal(t, "http://127.0.0.1:1/api", os.Getenv("VOICEAGENT_BASE_URL"))
	assert.Equal(t, "k", os.Getenv("VOICEAGENT_API_KEY"))
	UseMock(t)
	assert.Empty(t, os.Getenv("VOICEAGENT_BASE_URL"))
	assert.Empty(t, os.Getenv("VOICEAGENT_API_KEY"))

	got := Output(t, context.Background(), func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, "hello")
		return err
	})
	assert.Equal(t, "hello", got)
}

func TestAssertRejectsUnknownKey(t *testing.T) {
	srv := mockserver.Start(t)
	AssertRejectsUnknownKey(t, context.Background(), srv.URL, func(ctx context.Context, _ io.Writer) error {
		assert.Equal(t, srv.URL, os.Getenv("VOICEAGENT_BASE_URL"))
		_, err := client.New(os.Getenv("VOICEAGENT_API_KEY")).Agents.List(ctx, nil)
		return err
	})
}
