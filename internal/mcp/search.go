package mcp

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/tool"
)

// SearchName is the name of the tool that offers the MCP tools kept out
// of the first request.
const SearchName = "tool_search"

// DefaultSchemaBudget is mcp.schema_budget_bytes when settings.json
// does not set it.
const DefaultSchemaBudget = 16 << 10

const (
	// searchResults bounds the tools one search returns and reveals.
	searchResults = 8
	// summaryBytes bounds a listed tool's one-line description.
	summaryBytes = 100
	// specOverhead is what the wire formats add around one tool's name,
	// description and schema ({"type":"function","function":{…}} and the
	// like), counted generously so that the estimate stays above the
	// bytes sent.
	specOverhead = 48
	// RequestOverhead is what a first request holds besides the system
	// prompt and the tools: the model, the bounds, the message's
	// wrapping and a short prompt.
	RequestOverhead = 512
)

//go:embed search.md
var searchText string

// searchText's placeholders are filled with strings.Replacer, not
// text/template: the template package's reflection makes the linker keep
// every method of every type, megabytes of memory in every run.

var searchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"words to match against the listed tools' names and descriptions"}},"required":["query"]}`)

// Search is tool_search: the MCP tools past the schema budget, listed by
// name and one line each, and the ones a search has revealed since. It
// only answers with schemas; calls of the tools go through the gate as
// any other call does.
type Search struct {
	deferred []tool.Spec
	listed   map[string]bool
	listing  string

	mu       sync.Mutex
	revealed map[string]bool
}

// SpecBytes is what one tool's definition adds to a request, estimated
// from above.
func SpecBytes(s tool.Spec) int {
	raw, err := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"input_schema"`
	}{s.Name, s.Description, s.Schema})
	if err != nil {
		// A schema that is not JSON goes out as its text at most twice
		// over once escaped.
		return 2*(len(s.Name)+len(s.Description)+len(s.Schema)) + specOverhead
	}
	return len(raw) + specOverhead
}

// Plan splits the exposed MCP tools, in their order, between the ones a
// request offers in full and the ones past the budget, which only
// tool_search offers. fixed is what the first request holds without any
// MCP tool (system prompt, the other tools, RequestOverhead). Plan
// returns nil when every tool fits, or when there is none.
func Plan(budget, fixed int, tools []tool.Spec) *Search {
	total := fixed
	for _, t := range tools {
		total += SpecBytes(t)
	}
	if len(tools) == 0 || total <= budget {
		return nil
	}
	base := fixed + SpecBytes(newSearch(nil, "").Spec())
	lines, cost := listing(tools, true, base)
	if cost > budget {
		// Even one line each is too much: names alone, the most that
		// can be said about every tool.
		lines, cost = listing(tools, false, base)
	}
	kept := 0
	for kept < len(tools) {
		next := cost - lineBytes(lines[kept]) + SpecBytes(tools[kept])
		if next > budget {
			break
		}
		cost, kept = next, kept+1
	}
	return newSearch(tools[kept:], strings.Join(lines[kept:], "\n"))
}

func newSearch(deferred []tool.Spec, listing string) *Search {
	s := &Search{deferred: deferred, listed: map[string]bool{}, listing: listing, revealed: map[string]bool{}}
	for _, t := range deferred {
		s.listed[t.Name] = true
	}
	return s
}

// listing is every tool's line, and base plus what they add to
// tool_search's description.
func listing(tools []tool.Spec, described bool, base int) ([]string, int) {
	lines := make([]string, len(tools))
	cost := base
	for i, t := range tools {
		lines[i] = listLine(t, described)
		cost += lineBytes(lines[i])
	}
	return lines, cost
}

// lineBytes is what a listing line adds to a request: its text escaped
// as JSON, and the escaped newline after it.
func lineBytes(line string) int {
	raw, _ := json.Marshal(line) // a string always encodes
	return len(raw) - 2 + len(`\n`)
}

// listLine is a tool as the listing shows it: its name, and the first
// line of its description, cut.
func listLine(t tool.Spec, described bool) string {
	first, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
	first = strings.TrimSpace(first)
	if !described || first == "" {
		return "- " + t.Name
	}
	if len(first) > summaryBytes {
		n := summaryBytes
		for n > 0 && !utf8.RuneStart(first[n]) {
			n--
		}
		first = strings.TrimRight(first[:n], " ") + "…"
	}
	return "- " + t.Name + ": " + first
}

// Deferred are the names of the tools past the budget, in order.
func (s *Search) Deferred() []string {
	out := make([]string, len(s.deferred))
	for i, t := range s.deferred {
		out[i] = t.Name
	}
	return out
}

// Offered tells whether a request offers the named tool in full: every
// tool but the deferred ones a search has not revealed yet.
func (s *Search) Offered(name string) bool {
	if !s.listed[name] {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revealed[name]
}

// Spec describes tool_search with the listing of the deferred tools.
func (s *Search) Spec() tool.Spec {
	// One pass: a listed tool's own text is never read for placeholders.
	text := strings.NewReplacer("{{.MaxResults}}", strconv.Itoa(searchResults), "{{.Listing}}", s.listing).Replace(strings.TrimSpace(searchText))
	return tool.Spec{Name: SearchName, Description: text, Schema: searchSchema, Class: tool.Read}
}

// Describe states the limits a search runs under.
func (s *Search) Describe() (limits []string, example string) {
	return []string{fmt.Sprintf("at most %d tools a search", searchResults), "searches only the MCP tools past mcp.schema_budget_bytes"},
		"Find a tool that lists the files of a folder."
}

// Run returns the full definitions of the deferred tools that match the
// query best and offers them from the next request on.
func (s *Search) Run(_ context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	var a struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("arguments must be an object with query (string)"), nil
	}
	words := strings.Fields(strings.ToLower(a.Query))
	if len(words) == 0 {
		return tool.Errorf("query must hold at least one word"), nil
	}
	found := s.match(words)
	if len(found) == 0 {
		return tool.Result{Content: fmt.Sprintf("No listed tool matches %q. Listed tools: %s", a.Query, strings.Join(s.Deferred(), ", "))}, nil
	}
	s.mu.Lock()
	for _, t := range found {
		s.revealed[t.Name] = true
	}
	s.mu.Unlock()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d tools are offered in full from now on:\n", len(found))
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, t := range found {
		if err := enc.Encode(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"input_schema"`
		}{t.Name, t.Description, t.Schema}); err != nil {
			return tool.Result{}, fmt.Errorf("encode %s: %w", t.Name, err)
		}
	}
	return tool.Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

// match ranks the deferred tools by how many of the words their name
// and description hold, best first, in listing order among equals.
func (s *Search) match(words []string) []tool.Spec {
	type hit struct {
		t     tool.Spec
		score int
	}
	var hits []hit
	for _, t := range s.deferred {
		name := strings.ToLower(t.Name)
		text := name + " " + strings.ToLower(t.Description)
		score := 0
		for _, w := range words {
			switch {
			case w == name:
				score += 100
			case strings.Contains(name, w):
				score += 3
			case strings.Contains(text, w):
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{t, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	var out []tool.Spec
	for i := 0; i < len(hits) && i < searchResults; i++ {
		out = append(out, hits[i].t)
	}
	return out
}
