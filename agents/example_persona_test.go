package agents_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Load a test persona into an agent: its opener becomes the agent's first
// message.
func ExampleService_LoadPersona() {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	loaded, err := c.Agents.LoadPersona(ctx, &agents.PersonaParams{
		AgentID: acct.AgentID,
		Persona: agents.Persona{
			LeadName: "Sam", Scenario: "Water heater leaking since this morning",
			FactsToWithhold: []string{"budget"}, Opener: voiceagent.String("Hi, my water heater is leaking."),
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(loaded.FirstMessageSource+":", loaded.FirstMessage)
	a, err := c.Agents.Get(ctx, acct.AgentID)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.FirstMessage)
	// Output:
	// opener: Hi, my water heater is leaking.
	// Hi, my water heater is leaking.
}
