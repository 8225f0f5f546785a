package openapi_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/voiceagent/voiceagent-go/openapi"
)

// Compile every schema with one compiler (they reference common.json by relative $ref) and
// validate a request body against one of them.
func Example() {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, name := range openapi.SchemaNames() {
		raw, _ := openapi.Schema(name)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			log.Fatal(err)
		}
		if err := c.AddResource(openapi.SchemaID(name), doc); err != nil {
			log.Fatal(err)
		}
	}
	sch, err := c.Compile(openapi.SchemaID("callCreate"))
	if err != nil {
		log.Fatal(err)
	}

	body, _ := jsonschema.UnmarshalJSON(strings.NewReader(
		`{"agent_id": "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "to": "555-0100"}`))
	fmt.Println(sch.Validate(body))
	// Output:
	// jsonschema validation failed with 'https://api.voiceagent.example/schemas/callCreate.json#'
	// - at '/to': '555-0100' does not match pattern '^\\+[1-9][0-9]{1,14}$'
}
