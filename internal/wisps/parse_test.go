package wisps

import (
	"strings"
	"testing"
)

func TestParseStructuralErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown step field", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","colour":1}]}`, `step "a": field "colour": unknown field`},
		{"unknown top field", `{"steps":[],"extra":1}`, `field "extra": unknown field`},
		{"no steps", `{"description":"x","steps":[]}`, `field "steps": a wisp needs at least one step`},
		{"bad mode", `{"steps":[{"id":"a","mode":"Auto"}]}`, `step "a": field "mode": "Auto" is not a mode`},
		{"missing mode", `{"steps":[{"id":"a","tool":"x"}]}`, `step "a": field "mode": required`},
		{"bad gateway", `{"steps":[{"id":"a","mode":"Direct","gateway":"Ftp"}]}`, `step "a": field "gateway": "Ftp" is not a gateway`},
		{"direct without gateway", `{"steps":[{"id":"a","mode":"Direct","tool":"x"}]}`, `step "a": field "gateway": a Direct step needs a gateway`},
		{"missing id", `{"steps":[{"mode":"Llm","prompt":"p"}]}`, `step "#1": field "id": required`},
		{"duplicate id case-insensitive", `{"steps":[{"id":"A","mode":"Llm","prompt":"p"},{"id":"a","mode":"Llm","prompt":"p"}]}`, `step "a": field "id": duplicate step id`},
		{"wrong type", `{"steps":[{"id":"a","mode":"Llm","prompt":5}]}`, `step "a": field "prompt": must be a string`},
		{"llm without prompt", `{"steps":[{"id":"a","mode":"Llm"}]}`, `step "a": field "prompt": an Llm step needs a prompt`},
		{"llm with tool", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","tool":"x"}]}`, `step "a": field "tool": only for Direct steps`},
		{"mcp without tool", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp"}]}`, `step "a": field "tool": an Mcp step needs tool`},
		{"a2a without skill", `{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"x","message":"m"}]}`, `step "a": field "skill": an A2A step needs agent, skill and message`},
		{"a2a with output_to", `{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"x","skill":"s","message":"m","output_to":"o.txt"}]}`, `step "a": field "output_to": an A2A step returns before`},
		{"script without script", `{"steps":[{"id":"a","mode":"Direct","gateway":"Script","params":{}}]}`, `step "a": field "params": a Script step needs params.script`},
		{"script bad language", `{"steps":[{"id":"a","mode":"Direct","gateway":"Script","language":"ruby","params":{"script":"x"}}]}`, `step "a": field "language": "ruby" is not supported`},
		{"web wrong tool", `{"steps":[{"id":"a","mode":"Direct","gateway":"Web","tool":"curl","params":{}}]}`, `step "a": field "tool": a Web step calls web_search or web_browse`},
		{"params not object", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","params":[1]}]}`, `step "a": field "params": must be an object`},
		{"params and alias", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","params":{},"input":{}}]}`, `step "a": field "input": params and input are the same field`},
		{"output_to outside", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","output_to":"../x"}]}`, `step "a": field "output_to": path ../x is outside the shared volume`},
		{"input_from absolute", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","input_from":"/etc/passwd"}]}`, `step "a": field "input_from": path /etc/passwd is outside`},
		{"bad on_failure action", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","on_failure":{"action":"retry"}}]}`, `step "a": field "on_failure": action "retry" is not abort or skip_to`},
		{"skip_to missing target", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","on_failure":{"action":"skip_to","skip_to":"zz"}},{"id":"b","mode":"Llm","prompt":"p"}]}`, `step "a": field "on_failure": skip_to "zz" is not a later step`},
		{"skip_to backwards", `{"steps":[{"id":"a","mode":"Llm","prompt":"p"},{"id":"b","mode":"Llm","prompt":"p","on_failure":{"action":"skip_to","skip_to":"a"}}]}`, `step "b": field "on_failure": skip_to "a" is not a later step`},
		{"skip_to without target", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","on_failure":{"action":"skip_to"}}]}`, `needs skip_to`},
		{"for_each on llm", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Llm","prompt":"p","for_each":"{{steps.s.result}}"}]}`, `step "a": field "for_each": only Direct steps iterate`},
		{"for_each on a2a", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"A2A","agent":"x","skill":"s","message":"m","for_each":"{{steps.s.result}}"}]}`, `step "a": field "for_each": an A2A step cannot iterate`},
		{"for_each later source", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.b.result}}"},{"id":"b","mode":"Llm","prompt":"p"}]}`, `step "a": field "for_each": "b" is not an earlier step`},
		{"for_each self source", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.a.result}}"}]}`, `"a" is not an earlier step`},
		{"for_each not a template", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"steps.s.result"}]}`, `must be one {{steps.<id>.result[.path]}} template`},
		{"for_each two templates", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.s.result}}{{steps.s.result}}"}]}`, `must be one`},
		{"bad as", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.s.result}}","as":"item"}]}`, `step "a": field "as": "item" is not a usable alias`},
		{"bad as chars", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.s.result}}","as":"m.x"}]}`, `field "as"`},
		{"max_items zero", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.s.result}}","max_items":0}]}`, `step "a": field "max_items": must be a positive whole number`},
		{"concurrency fraction", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.s.result}}","concurrency":1.5}]}`, `step "a": field "concurrency": must be a positive whole number`},
		{"bad on_item_failure", `{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","for_each":"{{steps.s.result}}","on_item_failure":"retry"}]}`, `step "a": field "on_item_failure": "retry" is not abort or continue`},
		{"iteration field without for_each", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","max_items":3}]}`, `step "a": field "max_items": only with for_each`},
		{"item in params without for_each", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"t","params":{"x":"{{item.id}}"}}]}`, `step "a": field "params": {{item.id}} is only available in a for_each step`},
		{"item_index in message without for_each", `{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"x","skill":"s","message":"{{item_index}}"}]}`, `step "a": field "message": {{item_index}}`},
		{"item in prompt", `{"steps":[{"id":"a","mode":"Llm","prompt":"do {{ item }}"}]}`, `step "a": field "prompt": {{item}}`},
		{"negative timeout", `{"steps":[{"id":"a","mode":"Llm","prompt":"p","timeout_minutes":-1}]}`, `step "a": field "timeout_minutes": must not be negative`},
		{"batch names the definition", `{"definitions":[{"steps":[{"id":"a","mode":"Llm","prompt":"p"}]},{"steps":[{"id":"a","mode":"Bad"}]}]}`, `definition 2: step "a": field "mode"`},
		{"not json or yaml", "steps: [\n", "not valid JSON or YAML"},
		{"empty file", "  ", "the file is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFile([]byte(c.src))
			if err == nil {
				t.Fatalf("parsed; want an error containing %q", c.want)
			}
			if !IsStructural(err) {
				t.Fatalf("error %v is not Structural", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestParseForms(t *testing.T) {
	def := `{"description":"d","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","arguments":{"path":"x"}}]}`
	cases := []struct {
		name, src string
		n         int
	}{
		{"object", def, 1},
		{"array", "[" + def + "," + def + "]", 2},
		{"definitions of strings", `{"definitions":[` + quote(def) + `,` + def + `]}`, 2},
		{"yaml", "description: d\nsteps:\n  - id: a\n    mode: Direct\n    gateway: Mcp\n    tool: fs__read_file\n    input:\n      path: x\n", 1},
		{"yaml batch", "definitions:\n  - steps:\n      - {id: a, mode: llm, prompt: p}\n  - steps:\n      - {id: b, mode: LLM, prompt: q}\n", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs, err := ParseFile([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if len(defs) != c.n {
				t.Fatalf("got %d definitions, want %d", len(defs), c.n)
			}
			st := defs[0].Steps[0]
			if st.Mode == Direct && !strings.Contains(string(st.Params), `"path"`) {
				t.Fatalf("params alias lost: %s", st.Params)
			}
			if st.Mode == "" {
				t.Fatal("mode not canonical")
			}
		})
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func TestStepDefaults(t *testing.T) {
	cases := []struct {
		name                 string
		st                   Step
		items, par           int
		policy, action, lang string
	}{
		{"defaults", Step{}, 25, 1, "abort", "abort", "python"},
		{"clamped", Step{MaxItems: 500, Concurrency: 9, OnItemFailure: "continue", Language: "Bash"}, 100, 4, "continue", "abort", "bash"},
		{"within", Step{MaxItems: 7, Concurrency: 3, OnFailure: &OnFailure{Action: "skip_to", SkipTo: "x"}}, 7, 3, "abort", "skip_to", "python"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.st.ItemLimit() != c.items || c.st.Parallel() != c.par || c.st.ItemPolicy() != c.policy || c.st.Action() != c.action || c.st.ScriptLanguage() != c.lang {
				t.Fatalf("got %d %d %s %s %s", c.st.ItemLimit(), c.st.Parallel(), c.st.ItemPolicy(), c.st.Action(), c.st.ScriptLanguage())
			}
		})
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte(`{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"p":"{{steps.x.result}}"}}]}`))
	f.Add([]byte("steps:\n - id: a\n   mode: Llm\n   prompt: hi\n"))
	f.Add([]byte(`[{"steps":[{"id":"s","mode":"Llm","prompt":"p"},{"id":"b","mode":"Direct","gateway":"Web","tool":"web_browse","params":{},"for_each":"{{steps.s.result}}"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := ParseFile(data)
		if err != nil {
			if !IsStructural(err) {
				t.Fatalf("non-Structural parse error: %v", err)
			}
			return
		}
		for _, d := range defs {
			if len(d.Steps) == 0 {
				t.Fatal("a definition without steps passed")
			}
			_ = DefinitionHash(d)
			_ = ShapeHash(d)
		}
	})
}
