package test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
)

// recorded holds every response the suite received from the service, to
// be checked against the OpenAPI document after the run.
var recorded struct {
	mu    sync.Mutex
	calls []recordedCall
}

type recordedCall struct {
	method, path, contentType string
	status                    int
	body                      []byte
}

func record(method, rawURL string, status int, contentType string, body []byte) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	recorded.mu.Lock()
	defer recorded.mu.Unlock()
	recorded.calls = append(recorded.calls, recordedCall{method, u.Path, contentType, status, body})
}

// openAPIViolations checks each recorded response: its path, method and
// status are documented, and a JSON body matches the documented schema.
func openAPIViolations() []string {
	var doc map[string]any
	if err := yaml.Unmarshal(app.OpenAPI(), &doc); err != nil {
		return []string{"openapi.yaml does not parse: " + err.Error()}
	}
	if doc["openapi"] != "3.1.0" {
		return []string{fmt.Sprintf("openapi version %v, want 3.1.0", doc["openapi"])}
	}
	v := &validator{doc: doc}
	recorded.mu.Lock()
	defer recorded.mu.Unlock()
	if len(recorded.calls) < 100 && fullRun() {
		return []string{fmt.Sprintf("only %d responses recorded: the conformance check would prove nothing", len(recorded.calls))}
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range recorded.calls {
		key := fmt.Sprintf("%s %s %d", c.method, c.path, c.status)
		if msg := v.check(c); msg != "" && !seen[key+msg] {
			seen[key+msg] = true
			out = append(out, key+": "+msg)
		}
	}
	return out
}

type validator struct{ doc map[string]any }

func (v *validator) check(c recordedCall) string {
	paths, _ := v.doc["paths"].(map[string]any)
	item, ok := paths[c.path].(map[string]any)
	if !ok {
		if c.status == 404 {
			return ""
		}
		return "path not documented"
	}
	op, ok := item[strings.ToLower(c.method)].(map[string]any)
	if !ok {
		if c.status == 405 {
			return ""
		}
		return "method not documented"
	}
	responses, _ := op["responses"].(map[string]any)
	resp, ok := responses[strconv.Itoa(c.status)].(map[string]any)
	if !ok {
		return "status not documented"
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		return ""
	}
	mt := strings.TrimSpace(strings.Split(c.contentType, ";")[0])
	media, ok := content[mt].(map[string]any)
	if !ok {
		return "content type " + mt + " not documented"
	}
	if mt != "application/json" {
		return ""
	}
	var body any
	if err := json.Unmarshal(c.body, &body); err != nil {
		return "body is not JSON"
	}
	if err := v.validate(media["schema"], body, "$"); err != "" {
		return err + " in " + string(c.body[:min(len(c.body), 300)])
	}
	return ""
}

// validate checks the JSON Schema subset the document uses: $ref, type,
// required, properties, additionalProperties, items, enum, const, pattern.
func (v *validator) validate(schema any, value any, at string) string {
	s, ok := schema.(map[string]any)
	if !ok {
		return ""
	}
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		comps := v.doc["components"].(map[string]any)["schemas"].(map[string]any)
		return v.validate(comps[name], value, at)
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(value) {
		return fmt.Sprintf("%s = %v, want const %v", at, value, c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if fmt.Sprint(x) == fmt.Sprint(value) {
				found = true
			}
		}
		if !found {
			return fmt.Sprintf("%s = %v, not in enum %v", at, value, e)
		}
	}
	switch s["type"] {
	case "object":
		obj, ok := value.(map[string]any)
		if !ok {
			return at + " is not an object"
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Sprintf("%s lacks required %v", at, r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, val := range obj {
			if p, ok := props[k]; ok {
				if msg := v.validate(p, val, at+"."+k); msg != "" {
					return msg
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case nil:
				return fmt.Sprintf("%s has undocumented member %q", at, k)
			case bool:
				if !ap {
					return fmt.Sprintf("%s has undocumented member %q", at, k)
				}
			default:
				if msg := v.validate(ap, val, at+"."+k); msg != "" {
					return msg
				}
			}
		}
	case "array":
		arr, ok := value.([]any)
		if !ok {
			return at + " is not an array"
		}
		for i, x := range arr {
			if msg := v.validate(s["items"], x, fmt.Sprintf("%s[%d]", at, i)); msg != "" {
				return msg
			}
		}
	case "string":
		str, ok := value.(string)
		if !ok {
			return at + " is not a string"
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Sprintf("%s = %q does not match %s", at, str, p)
		}
	case "integer":
		if f, ok := value.(float64); !ok || f != float64(int64(f)) {
			return at + " is not an integer"
		}
	}
	return ""
}
