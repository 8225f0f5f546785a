package openapi_test

import (
	"fmt"
	"log"

	"go.yaml.in/yaml/v3"

	"github.com/voiceagent/voiceagent-go/openapi"
)

// The bundled document is self-contained: the body of POST /v1/calls points at the component
// holding schemas/callCreate.json, whose own references point at the shared definitions.
func ExampleBundled() {
	raw, err := openapi.Bundled("http://127.0.0.1:8080/api")
	if err != nil {
		log.Fatal(err)
	}
	var doc struct {
		Info struct {
			Version string `yaml:"version"`
		} `yaml:"info"`
		Servers []struct {
			URL string `yaml:"url"`
		} `yaml:"servers"`
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `yaml:"$ref"`
					} `yaml:"schema"`
				} `yaml:"content"`
			} `yaml:"requestBody"`
		} `yaml:"paths"`
		Components struct {
			Schemas struct {
				CallCreate struct {
					Properties struct {
						To struct {
							Ref string `yaml:"$ref"`
						} `yaml:"to"`
					} `yaml:"properties"`
				} `yaml:"callCreate"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Info.Version)
	fmt.Println(doc.Servers[0].URL)
	fmt.Println(doc.Paths["/v1/calls"]["post"].RequestBody.Content["application/json"].Schema.Ref)
	fmt.Println(doc.Components.Schemas.CallCreate.Properties.To.Ref)
	// Output:
	// 2026-06-05
	// http://127.0.0.1:8080/api
	// #/components/schemas/callCreate
	// #/components/schemas/common.e164
}
