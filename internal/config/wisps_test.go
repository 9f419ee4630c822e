package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWebSearchBackend(t *testing.T) {
	cases := []struct {
		name, raw, wantErr string
		wantURL            string
	}{
		{"unset", ``, "", ""},
		{"null", `null`, "", ""},
		{"searxng", `{"url":"https://search.example/search?q={query}&format=json"}`, "", "https://search.example/search?q={query}&format=json"},
		{"headers", `{"url":"http://127.0.0.1:8888/?q={query}","headers_from":{"Authorization":"SEARCH_TOKEN"}}`, "", "http://127.0.0.1:8888/?q={query}"},
		{"no placeholder", `{"url":"https://search.example/search"}`, "web_search.url: must hold {query} exactly once", ""},
		{"two placeholders", `{"url":"https://s.example/{query}?q={query}"}`, "web_search.url: must hold {query} exactly once", ""},
		{"not http", `{"url":"file:///etc/passwd?{query}"}`, "web_search.url: must be an http or https URL", ""},
		{"credentials", `{"url":"https://u:p@s.example/?q={query}"}`, "web_search.url: may not hold credentials", ""},
		{"unknown key", `{"url":"https://s.example/?q={query}","method":"POST"}`, "web_search: must be an object", ""},
		{"bad env name", `{"url":"https://s.example/?q={query}","headers_from":{"X-Key":"not a var"}}`, "web_search.headers_from: X-Key: must name an environment variable", ""},
		{"own header", `{"url":"https://s.example/?q={query}","headers_from":{"Host":"H"}}`, "web_search.headers_from", ""},
		{"not an object", `"https://s.example/?q={query}"`, "web_search: must be an object", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := Settings{WebSearch: json.RawMessage(c.raw)}.WebSearchBackend()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				if strings.Contains(err.Error(), "u:p") {
					t.Errorf("error shows a value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ""; w != nil {
				got = w.URL
				if got != c.wantURL {
					t.Errorf("url %q, want %q", got, c.wantURL)
				}
			} else if c.wantURL != "" {
				t.Errorf("nil backend, want %q", c.wantURL)
			}
		})
	}
}

func TestA2AAgentList(t *testing.T) {
	cases := []struct {
		name, raw, wantErr string
		want               []string
	}{
		{"unset", ``, "", nil},
		{"two agents sorted", `{"research":{"url":"https://r.example/a2a"},"billing":{"url":"http://127.0.0.1:9/","headers_from":{"Authorization":"BILLING_TOKEN"}}}`, "", []string{"billing", "research"}},
		{"not an object", `[]`, "a2a_agents: must be an object of agents by name", nil},
		{"bad name", `{"a b":{"url":"https://r.example/"}}`, `a2a_agents: "a b" is not a usable name`, nil},
		{"no url", `{"research":{}}`, "a2a_agents.research.url: must be a non-empty http or https URL", nil},
		{"unknown key", `{"research":{"url":"https://r.example/","token":"x"}}`, "a2a_agents.research: must be an object", nil},
		{"bad header", `{"research":{"url":"https://r.example/","headers_from":{"Content-Type":"X"}}}`, "a2a_agents.research.headers_from", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			list, err := Settings{A2AAgents: json.RawMessage(c.raw)}.A2AAgentList()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range list {
				got = append(got, a.Name)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("agents %v, want %v", got, c.want)
			}
		})
	}
}
