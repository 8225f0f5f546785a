package agents_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// exampleClient starts an in-process mock server and returns a client for a
// fresh account on it, the account, and a stop function.
func exampleClient() (*client.Client, *mockserver.Account, func()) {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Dental"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	return c, acct, func() { hs.Close(); srv.Close() }
}

func ExampleService_Create() {
	c, acct, stop := exampleClient()
	defer stop()
	ctx := context.Background()

	created, err := c.Agents.Create(ctx, &agents.CreateParams{
		BusinessID:   acct.BusinessID,
		Name:         "Front desk",
		SystemPrompt: "You answer calls for a dental office. Book cleanings and take messages.",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created.Name)

	// The detail shows the defaults the platform filled in.
	agent, err := c.Agents.Get(ctx, created.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(agent.FirstMessage)
	fmt.Println(agent.Model.Model, agent.Model.Temperature, agent.LeadCollection)
	// Output:
	// Front desk
	// Hello! How can I help you today?
	// gpt-4o-mini 0.7 true
}

func ExampleService_Update() {
	c, acct, stop := exampleClient()
	defer stop()
	ctx := context.Background()

	// Only the fields set change; metadata is merged.
	up, err := c.Agents.Update(ctx, &agents.UpdateParams{
		ID:                   acct.AgentID,
		OutboundPrompt:       voiceagent.String("You call patients to confirm tomorrow's appointments."),
		OutboundFirstMessage: voiceagent.String("Hi {{name}}, this is Acme Dental about your appointment."),
		SMSPrompt:            voiceagent.String("You text short, friendly reminders."),
		Metadata:             map[string]any{"team": "front-desk"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(up.Updated, up.UpdatedFields)

	agent, err := c.Agents.Get(ctx, acct.AgentID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*agent.Prompts.Outbound.Prompt)
	fmt.Println(*agent.Prompts.SMS.Prompt)
	// Output:
	// true [metadata outbound_first_message outbound_prompt sms_prompt]
	// You call patients to confirm tomorrow's appointments.
	// You text short, friendly reminders.
}

func ExampleService_List() {
	c, acct, stop := exampleClient()
	defer stop()
	ctx := context.Background()

	list, err := c.Agents.List(ctx, &agents.ListParams{BusinessID: acct.BusinessID})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range list {
		fmt.Println(a.Name, a.Status, *a.PhoneNumber == acct.PhoneNumber)
	}
	// Output: Acme Dental Intake Agent active true
}

func ExampleService_ListVoices() {
	c, _, stop := exampleClient()
	defer stop()

	voices, err := c.Agents.ListVoices(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	v := voices[0]
	fmt.Println(len(voices) > 1, v.ID != "", v.Provider != "")
	// Choose one with CreateParams.VoiceCatalogID or UpdateParams.VoiceCatalogID.
	// Output: true true true
}
