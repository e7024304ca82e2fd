package agentloop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// toolSchemas are the loop's tools as a request header declares them, in
// the key order dsh writes (name, description, parameters).
var toolSchemas = map[string]string{
	"echo":   `{"name":"echo","description":"echo back","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}`,
	"deploy": `{"name":"deploy","description":"deploy the service","parameters":{"type":"object","properties":{"env":{"type":"string"}}}}`,
}

func toolNames() string {
	names := make([]string, 0, len(toolSchemas))
	for name := range toolSchemas {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// toolSchema returns a tool's declaration.
func toolSchema(name string) jsonv.Value {
	v, err := jsonv.Parse([]byte(toolSchemas[name]))
	if err != nil {
		panic("agentloop: bad tool schema " + name) // the table above is constant
	}
	return v
}

// Tools runs the loop's tools one at a time: echo, which answers with its
// text, and deploy, a stand-in for a tool with side effects, which records
// each deployment it makes.
type Tools struct {
	// Deployed lists the environments deploy has deployed to, in order:
	// the side effect a crash leaves unknown.
	Deployed []string
}

// Run runs the named tool with its JSON arguments and returns its output
// text, or an error text with isError.
func (t *Tools) Run(name, arguments string) (output string, isError bool) {
	var args map[string]any
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return fmt.Sprintf("Error: arguments are not a JSON object: %v", err), true
	}
	switch name {
	case "echo":
		text, _ := args["text"].(string)
		return "echo: " + text, false
	case "deploy":
		env, _ := args["env"].(string)
		if env == "" {
			return "Error: deploy needs env", true
		}
		t.Deployed = append(t.Deployed, env)
		return "deployed to " + env, false
	}
	return fmt.Sprintf("Error: unknown tool %q", name), true
}
