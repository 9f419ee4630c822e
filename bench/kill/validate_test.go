package kill

import "testing"

func TestValidators(t *testing.T) {
	tests := []struct {
		name, format, body string
		ok                 bool
	}{
		{"anthropic: plain", "anthropic", `{"messages":[{"role":"user","content":"hi"}]}`, true},
		{"anthropic: call and result", "anthropic", `{"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"text","text":"next"}]}]}`, true},
		{"anthropic: two users in a row", "anthropic", `{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, false},
		{"anthropic: result missing", "anthropic", `{"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"bash","input":{}},{"type":"tool_use","id":"b","name":"bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`, false},
		{"anthropic: results out of order", "anthropic", `{"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"bash","input":{}},{"type":"tool_use","id":"b","name":"bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"x"},{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`, false},
		{"anthropic: stray result", "anthropic", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"z","content":"x"}]}]}`, false},
		{"anthropic: ends with assistant", "anthropic", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`, false},
		{"openai: call, result, new prompt", "openai", `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"a","content":"x"},{"role":"user","content":"next"}]}`, true},
		{"openai: result missing", "openai", `{"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{}"}}]},
			{"role":"user","content":"next"}]}`, false},
		{"openai: bad arguments", "openai", `{"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{"}}]},
			{"role":"tool","tool_call_id":"a","content":"x"}]}`, false},
		{"openai: two users", "openai", `{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, false},
		{"openai: stray tool", "openai", `{"messages":[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"a","content":"x"}]}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			validate := validateAnthropic
			if tc.format == "openai" {
				validate = validateOpenAI
			}
			_, err := validate([]byte(tc.body))
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func FuzzValidators(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = validateAnthropic(body)
		_, _ = validateOpenAI(body)
	})
}
