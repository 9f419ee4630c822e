package template

import (
	"encoding/json"
	"testing"
)

func scope() *Scope {
	return &Scope{Steps: map[string]*Step{
		"search": {Result: `{"messages":[{"id":"m1"}],"meta":{"count":2,"name":"box"},"text":"{{steps.other.result}}"}`, OutputTo: "out/search.json"},
		"plain":  {Result: "hello {{item}}"},
	}}
}

func TestResolve(t *testing.T) {
	item := map[string]any{"id": "m7", "n": json.Number("3"), "sub": map[string]any{"k": "v"}}
	cases := []struct {
		name, in, want string
		sc             *Scope
	}{
		{"whole result", "{{steps.plain.result}}", "hello {{item}}", scope()},
		{"one pass: substituted text is not re-read", "x {{steps.search.result.text}} y", "x {{steps.other.result}} y", scope()},
		{"object path string unwrapped", "{{steps.search.result.meta.name}}", "box", scope()},
		{"object path number", "{{steps.search.result.meta.count}}", "2", scope()},
		{"object inserted as JSON text", "{{steps.search.result.meta}}", `{"count":2,"name":"box"}`, scope()},
		{"array inserted as JSON text", "{{ steps.search.result.messages }}", `[{"id":"m1"}]`, scope()},
		{"array index is not a path", "{{steps.search.result.messages.0}}", "{{steps.search.result.messages.0}}", scope()},
		{"missing step stays literal", "a {{steps.nope.result}} b", "a {{steps.nope.result}} b", scope()},
		{"missing path stays literal", "{{steps.search.result.meta.zip}}", "{{steps.search.result.meta.zip}}", scope()},
		{"path into non-JSON stays literal", "{{steps.plain.result.a}}", "{{steps.plain.result.a}}", scope()},
		{"output_to", "{{steps.search.output_to}}", "out/search.json", scope()},
		{"output_to unset stays literal", "{{steps.plain.output_to}}", "{{steps.plain.output_to}}", scope()},
		{"case-insensitive step id", "{{steps.SEARCH.result.meta.name}}", "box", scope()},
		{"unterminated stays", "a {{steps.plain.result", "a {{steps.plain.result", scope()},
		{"item without for_each stays literal", "{{item.id}}", "{{item.id}}", scope()},
		{"item field", "{{item.id}}", "m7", &Scope{Item: item, HasItem: true}},
		{"item nested", "{{item.sub.k}}", "v", &Scope{Item: item, HasItem: true}},
		{"item whole", "{{item}}", `{"id":"m7","n":3,"sub":{"k":"v"}}`, &Scope{Item: item, HasItem: true}},
		{"alias", "{{msg.id}}/{{item_index}}", "m7/4", &Scope{Item: item, HasItem: true, As: "msg", Index: 4}},
		{"alias must not match prefix", "{{msgs.id}}", "{{msgs.id}}", &Scope{Item: item, HasItem: true, As: "msg"}},
		{"item string element", "{{item}}", "a\"b", &Scope{Item: "a\"b", HasItem: true}},
		{"unknown namespace", "{{env.HOME}}", "{{env.HOME}}", scope()},
		{"nil scope", "{{steps.a.result}}", "{{steps.a.result}}", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Resolve(c.in, c.sc); got != c.want {
				t.Fatalf("Resolve(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestResolveJSONEscapes(t *testing.T) {
	cases := []struct {
		name, in, want string
		sc             *Scope
	}{
		{"quotes escaped in string values", `{"q":"{{item}}"}`, `{"q":"say \"hi\"\n"}`, &Scope{Item: "say \"hi\"\n", HasItem: true}},
		{"keys untouched", `{"{{item}}":"{{item}}"}`, `{"{{item}}":"x"}`, &Scope{Item: "x", HasItem: true}},
		{"nested arrays", `{"a":["{{item_index}}",1]}`, `{"a":["2",1]}`, &Scope{Item: "x", HasItem: true, Index: 2}},
		{"numbers keep precision", `{"n":12345678901234567890,"s":"{{item}}"}`, `{"n":12345678901234567890,"s":"x"}`, &Scope{Item: "x", HasItem: true}},
		{"no template unchanged", `{"a": 1}`, `{"a": 1}`, nil},
		{"invalid JSON unchanged", `{"a": "{{item}}"`, `{"a": "{{item}}"`, &Scope{Item: "x", HasItem: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(ResolveJSON(json.RawMessage(c.in), c.sc)); got != c.want {
				t.Fatalf("ResolveJSON(%s) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

func TestReferences(t *testing.T) {
	got := References("a {{ item.id }} b {{steps.x.result}} {{open")
	if len(got) != 2 || got[0] != "item.id" || got[1] != "steps.x.result" {
		t.Fatalf("References = %q", got)
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"{{steps.search.result.meta}}", "{{item}}{{", "}}{{steps.plain.result}}{{", "{{{{item}}}}", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc := scope()
		sc.Item, sc.HasItem, sc.As = map[string]any{"id": "{{item}}"}, true, "msg"
		out := Resolve(s, sc)
		// Text without references passes through untouched.
		if len(References(s)) == 0 && out != s {
			t.Fatalf("Resolve changed %q to %q", s, out)
		}
		// Resolution is one pass: resolving the template with an empty
		// scope changes nothing.
		if Resolve(s, &Scope{}) != s {
			t.Fatalf("empty scope changed %q", s)
		}
	})
}
