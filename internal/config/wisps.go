package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// QueryPlaceholder marks where web_search puts the URL-encoded query in
// the web_search url.
const QueryPlaceholder = "{query}"

// WebSearch is settings.json's web_search (user file only): a search
// backend answering GET url (with {query} replaced by the URL-encoded
// query) with JSON holding a results array of objects with title, url
// and content (a SearXNG-style endpoint with format=json).
type WebSearch struct {
	URL string `json:"url"`
	// HeadersFrom sends, with each request, a header whose value is the
	// named variable of wisp's own environment (header name to variable).
	HeadersFrom map[string]string `json:"headers_from"`
}

// A2AAgent is one entry of settings.json's a2a_agents (user file only):
// an agent invoke_agent may send a message to over the A2A protocol.
type A2AAgent struct {
	// Name is the entry's key, the name a wisp's A2A step gives.
	Name string `json:"-"`
	// URL is the agent's JSON-RPC endpoint.
	URL         string            `json:"url"`
	HeadersFrom map[string]string `json:"headers_from"`
}

// agentName is a name a2a_agents may use.
var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// WebSearchBackend reads web_search: nil when it is not set. The error
// names the key at fault, never a value.
func (s Settings) WebSearchBackend() (*WebSearch, error) {
	raw := bytes.TrimSpace(s.WebSearch)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var w WebSearch
	if err := strictDecode(raw, &w); err != nil {
		return nil, fmt.Errorf("web_search: must be an object with url (string) and headers_from (object of strings)")
	}
	if err := checkEndpoint(w.URL); err != "" {
		return nil, fmt.Errorf("web_search.url: %s", err)
	}
	if strings.Count(w.URL, QueryPlaceholder) != 1 {
		return nil, fmt.Errorf("web_search.url: must hold %s exactly once, where the query goes", QueryPlaceholder)
	}
	if why := checkHeadersFrom(w.HeadersFrom); why != "" {
		return nil, fmt.Errorf("web_search.headers_from: %s", why)
	}
	return &w, nil
}

// A2AAgentList reads a2a_agents, sorted by name. Any entry that is wrong
// is an error naming its key: an agent is only ever reached on purpose,
// so a half-read list is not offered.
func (s Settings) A2AAgentList() ([]A2AAgent, error) {
	raw := bytes.TrimSpace(s.A2AAgents)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("a2a_agents: must be an object of agents by name")
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]A2AAgent, 0, len(names))
	for _, n := range names {
		if !agentName.MatchString(n) {
			return nil, fmt.Errorf("a2a_agents: %q is not a usable name (letters, digits, _ . -, at most 64)", n)
		}
		var a A2AAgent
		if err := strictDecode(entries[n], &a); err != nil {
			return nil, fmt.Errorf("a2a_agents.%s: must be an object with url (string) and headers_from (object of strings)", n)
		}
		if why := checkEndpoint(a.URL); why != "" {
			return nil, fmt.Errorf("a2a_agents.%s.url: %s", n, why)
		}
		if why := checkHeadersFrom(a.HeadersFrom); why != "" {
			return nil, fmt.Errorf("a2a_agents.%s.headers_from: %s", n, why)
		}
		a.Name = n
		out = append(out, a)
	}
	return out, nil
}

func strictDecode(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// checkEndpoint says what is wrong with an http(s) URL setting.
func checkEndpoint(raw string) string {
	if raw == "" {
		return "must be a non-empty http or https URL"
	}
	u, err := url.Parse(strings.ReplaceAll(raw, QueryPlaceholder, "q"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "must be an http or https URL"
	}
	if u.User != nil {
		return "may not hold credentials; send them with headers_from"
	}
	return ""
}

// checkHeadersFrom says what is wrong with a headers_from object.
func checkHeadersFrom(h map[string]string) string {
	for k, v := range h {
		if !headerName.MatchString(k) || ownHeaders[strings.ToLower(k)] {
			return fmt.Sprintf("%q is not a header wisp lets a setting send", k)
		}
		if !envName.MatchString(v) {
			return fmt.Sprintf("%s: must name an environment variable", k)
		}
	}
	return ""
}
