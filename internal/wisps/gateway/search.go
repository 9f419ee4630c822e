package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Bounds of one web_search call.
const (
	searchReadBytes     = 1 << 20
	searchDefaultCount  = 5
	searchMaxCount      = 10
	searchTitleBytes    = 200
	searchSnippetBytes  = 500
	searchURLBytes      = 2048
	searchUserAgent     = "wisp-web-search/1"
	searchQueryMaxBytes = 1024
)

// Search asks the search backend of settings.json's web_search and
// returns its first results as a JSON array of {title, url, snippet}, so
// that a for_each step can fetch each url. Like Browse it is a remote
// tool whose calls reach the network: the gate asks before every search.
type Search struct {
	Backend config.WebSearch
	// Getenv reads the variables headers_from names.
	Getenv func(string) string
	// Client makes the request (nil: one with browse's bounds).
	Client *http.Client
}

// SearchResult is one hit as web_search returns it.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Spec describes web_search.
func (s *Search) Spec() tool.Spec {
	return tool.Spec{
		Name: "web_search",
		Description: fmt.Sprintf("Search the web through the configured search backend. Returns a JSON array of at most %d results, each {title, url, snippet}.",
			searchMaxCount),
		Schema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string","description":"what to search for"},"max_results":{"type":"integer","minimum":1,"maximum":%d,"description":"how many results (default %d)"}},"required":["query"],"additionalProperties":false}`,
			searchMaxCount, searchDefaultCount)),
		Class: tool.Command,
	}
}

type searchArgs struct {
	Query      string `json:"query"`
	MaxResults int    `json:"max_results"`
}

func parseSearchArgs(args json.RawMessage) (searchArgs, error) {
	var a searchArgs
	d := json.NewDecoder(strings.NewReader(string(args)))
	d.DisallowUnknownFields()
	if err := d.Decode(&a); err != nil {
		return a, fmt.Errorf("invalid arguments for web_search (it takes query and max_results): %v", err)
	}
	if a.Query = strings.TrimSpace(a.Query); a.Query == "" {
		return a, fmt.Errorf("missing required parameter query: the text to search for")
	}
	if len(a.Query) > searchQueryMaxBytes {
		return a, fmt.Errorf("invalid argument query: longer than %d bytes", searchQueryMaxBytes)
	}
	switch {
	case a.MaxResults == 0:
		a.MaxResults = searchDefaultCount
	case a.MaxResults < 0 || a.MaxResults > searchMaxCount:
		return a, fmt.Errorf("invalid argument max_results: from 1 to %d", searchMaxCount)
	}
	return a, nil
}

// requestURL puts the URL-encoded query where the setting's {query} is.
func (s *Search) requestURL(query string) string {
	return strings.Replace(s.Backend.URL, config.QueryPlaceholder, url.QueryEscape(query), 1)
}

// Invocation is what the person asked sees: the backend's host and the
// query, never the headers.
func (s *Search) Invocation(args json.RawMessage) (tool.Invocation, error) {
	a, err := parseSearchArgs(args)
	if err != nil {
		return tool.Invocation{}, err
	}
	host := s.Backend.URL
	if u, err := url.Parse(s.requestURL(a.Query)); err == nil {
		host = u.Host
	}
	return tool.Invocation{Server: "web", Tool: "web_search", Subject: fmt.Sprintf("web_search %s for %q", host, a.Query), Network: true}, nil
}

// Run asks the backend.
func (s *Search) Run(ctx context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	a, err := parseSearchArgs(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	ctx, cancel := context.WithTimeout(ctx, browseTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.requestURL(a.Query), nil)
	if err != nil {
		return tool.Errorf("web_search: %v", err), nil
	}
	req.Header.Set("User-Agent", searchUserAgent)
	req.Header.Set("Accept", "application/json")
	if err := setHeadersFrom(req, s.Backend.HeadersFrom, s.Getenv, "web_search"); err != nil {
		return tool.Errorf("%v", err), nil
	}
	resp, err := (&Browse{Client: s.Client}).client().Do(req)
	if err != nil {
		return tool.Errorf("web_search: connection to the search backend failed: %v", err), nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, searchReadBytes))
	if err != nil {
		return tool.Errorf("web_search: reading the answer: %v", err), nil
	}
	if resp.StatusCode >= 400 {
		return tool.Errorf("web_search: the search backend answered %s", resp.Status), nil
	}
	results, err := parseSearchResults(body, a.MaxResults)
	if err != nil {
		return tool.Errorf("web_search: %v", err), nil
	}
	out, err := json.Marshal(results)
	if err != nil {
		return tool.Errorf("web_search: %v", err), nil
	}
	return tool.Result{Content: string(out)}, nil
}

// parseSearchResults reads a SearXNG-style answer: {"results": [{title,
// url, content}]} (snippet is taken too, for backends that name it so).
// Results without an http(s) url are dropped; text is bounded.
func parseSearchResults(body []byte, n int) ([]SearchResult, error) {
	var doc struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the search backend's answer is not valid JSON with a results array: %v", err)
	}
	out := []SearchResult{}
	for _, r := range doc.Results {
		if len(out) == n {
			break
		}
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || len(r.URL) > searchURLBytes {
			continue
		}
		snippet := r.Content
		if snippet == "" {
			snippet = r.Snippet
		}
		out = append(out, SearchResult{Title: clip(oneLine(r.Title), searchTitleBytes), URL: r.URL, Snippet: clip(oneLine(snippet), searchSnippetBytes)})
	}
	return out, nil
}

// setHeadersFrom sets each header from the named variable; a variable
// that is not set is an error naming it, never a request without it.
func setHeadersFrom(req *http.Request, from map[string]string, getenv func(string) string, what string) error {
	for h, v := range from {
		val := ""
		if getenv != nil {
			val = getenv(v)
		}
		if val == "" {
			return fmt.Errorf("%s is not configured: header %s needs the environment variable %s, which is not set", what, h, v)
		}
		req.Header.Set(h, val)
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip bounds s to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
