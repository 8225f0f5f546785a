package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReceiverRecordsAndListsDeliveries: a JSON delivery to /hooks gets
// 204 and shows in GET /received; a body that is not JSON gets 400.
func TestReceiverRecordsAndListsDeliveries(t *testing.T) {
	srv := httptest.NewServer(&receiver{})
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/hooks", "application/json", strings.NewReader(`{"event":"call.completed"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	resp, err = http.Post(srv.URL+"/hooks", "text/plain", strings.NewReader(`not json`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	resp, err = http.Get(srv.URL + "/received")
	require.NoError(t, err)
	defer resp.Body.Close()
	var got struct {
		Deliveries []struct {
			Body map[string]any `json:"body"`
		} `json:"deliveries"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	require.Len(t, got.Deliveries, 1)
	assert.Equal(t, "call.completed", got.Deliveries[0].Body["event"])
}
