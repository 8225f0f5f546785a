package voiceagent_test

import (
	"slices"
	"testing"

	"github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// TestEventTypesAreTheOpenAPIEnum holds every enum of event types in the
// OpenAPI documents and their JSON Schemas equal to webhooks.EventTypes,
// the one Go list.
func TestEventTypesAreTheOpenAPIEnum(t *testing.T) {
	t.Parallel()
	var want []string
	for _, et := range webhooks.EventTypes() {
		want = append(want, string(et))
	}
	found := 0
	for where, values := range voiceagent.OpenAPIEnums(t) {
		if !slices.ContainsFunc(values, func(v string) bool { return slices.Contains(want, v) }) {
			continue
		}
		found++
		if !slices.Equal(values, want) {
			t.Errorf("%s: the event types are\n%v\nwant (webhooks.EventTypes)\n%v", where, values, want)
		}
	}
	if found == 0 {
		t.Error("no enum of event types in the OpenAPI documents")
	}
}
