package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// compiledSchemas compiles every schema of package openapi once per process;
// they are the same schemas GET /v1/schemas serves.
var compiledSchemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	names := openapi.SchemaNames()
	raws := map[string][]byte{}
	for _, name := range names {
		raws[name], _ = openapi.Schema(name)
	}
	for _, name := range openapi.AdminSchemaNames() {
		raws[name], _ = openapi.AdminSchema(name)
		names = append(names, name)
	}
	for _, name := range names {
		raw := raws[name]
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		if err := c.AddResource(openapi.SchemaID(name), doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range names {
		sch, err := c.Compile(openapi.SchemaID(name))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = sch
	}
	return out, nil
})

// Decode is the one validation path of request bodies: the body must be
// JSON, must satisfy the route's schema (unknown properties and bounds
// included), and is then decoded into dst. Failures are 400 with the route's
// validation code (invalid_request by default) and one detail per failing
// field.
func (rc *Ctx) Decode(dst any) error {
	return rc.DecodeAs(rc.Route.Schema, dst)
}

// DecodeAs is decode with a schema chosen by the handler (signup picks one
// of three body shapes).
func (rc *Ctx) DecodeAs(schema string, dst any) error {
	code := rc.Route.ValidationCode
	if code == "" {
		code = voiceagent.CodeInvalidRequest
	}
	if len(bytes.TrimSpace(rc.Body)) == 0 {
		return domain.New(code, "request body is required (JSON)")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rc.Body))
	if err != nil {
		return domain.New(code, "request body is not valid JSON: "+err.Error())
	}
	if schema != "" {
		schemas, err := compiledSchemas()
		if err != nil {
			return fmt.Errorf("compiling schemas: %w", err)
		}
		sch, ok := schemas[schema]
		if !ok {
			return fmt.Errorf("no schema named %q", schema)
		}
		if err := sch.Validate(doc); err != nil {
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				return err
			}
			return validationError(code, ve)
		}
	}
	if dst == nil {
		return nil
	}
	if err := json.Unmarshal(rc.Body, dst); err != nil {
		return domain.New(code, "request body does not match the expected shape: "+err.Error())
	}
	return nil
}

// validationError turns a schema failure into an API error with one detail
// per failing location (the deepest messages, which name the real problem).
func validationError(code string, ve *jsonschema.ValidationError) *domain.Error {
	var details []domain.FieldError
	seen := map[string]bool{}
	var walk func(u jsonschema.OutputUnit)
	add := func(d domain.FieldError) {
		if k := d.Path + d.Message; !seen[k] {
			seen[k] = true
			details = append(details, d)
		}
	}
	// A name refused by propertyNames: the detailed output says only that
	// a pattern or a "not" failed at the name, not which name it was; the
	// error tree does. (Its own instance location is unreliable, the
	// library reuses the slice: the object is its parent's location.)
	var names func(c *jsonschema.ValidationError, parent []string)
	names = func(c *jsonschema.ValidationError, parent []string) {
		if k, ok := c.ErrorKind.(*kind.PropertyNames); ok {
			add(domain.FieldError{Path: jsonPointer(parent), Message: fmt.Sprintf("the name %q is not allowed here", k.Property)})
			return
		}
		for _, cause := range c.Causes {
			names(cause, c.InstanceLocation)
		}
	}
	names(ve, nil)
	walk = func(u jsonschema.OutputUnit) {
		if strings.Contains(u.KeywordLocation, "/propertyNames") {
			return // named above
		}
		if len(u.Errors) == 0 && u.Error != nil {
			path := u.InstanceLocation
			if path == "" {
				path = "/"
			}
			msg := u.Error.String()
			switch k := u.Error.Kind.(type) {
			case *kind.FalseSchema:
				msg = "not allowed here"
			case *kind.ExclusiveMinimum:
				// The library's "exclusiveMinimum: got 0, want 0" reads
				// as if 0 were wanted.
				got, _ := k.Got.Float64()
				want, _ := k.Want.Float64()
				msg = fmt.Sprintf("must be greater than %v, not %v", want, got)
			}
			add(domain.FieldError{Path: path, Message: msg})
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	// DetailedOutput, not BasicOutput: the basic form reports failures
	// behind a $ref only as "validation failed".
	walk(*ve.DetailedOutput())
	sort.SliceStable(details, func(i, j int) bool { return len(details[i].Path) > len(details[j].Path) })
	if len(details) > 20 {
		details = details[:20]
	}
	msgs := make([]string, 0, 3)
	for i, d := range details {
		if i == 3 {
			break
		}
		msgs = append(msgs, d.Path+": "+d.Message)
	}
	e := domain.New(code, "request body failed validation: "+strings.Join(msgs, "; "))
	e.Details = details
	return e
}

// jsonPointer is an instance location as a JSON pointer ("/" for the
// root).
func jsonPointer(tokens []string) string {
	if len(tokens) == 0 {
		return "/"
	}
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(esc.Replace(t))
	}
	return b.String()
}

// DecodeLoose decodes JSON that decode already validated, for handlers that
// need to know which fields were sent.
func DecodeLoose(body []byte, dst any) error { return json.Unmarshal(body, dst) }

// Validate runs a Go admin helper's argument through the schema of its
// admin route: the same validation path, and the same errors, as the HTTP
// body.
func Validate(schema string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	rc := &Ctx{Route: &Route{Schema: schema}, Body: raw}
	return rc.Decode(nil)
}

// ValidateUnder checks v, a value a request body carries at the JSON
// pointer under (for example "/payload"), against the named schema, as
// Decode checks a body. When v fails, the error is Decode's moved under
// under (domain.Error.Under), its message naming what failed.
func ValidateUnder(schema string, v any, under, what string) error {
	err := Validate(schema, v)
	if e, ok := err.(*domain.Error); ok {
		return e.Under(under, what)
	}
	return err
}
