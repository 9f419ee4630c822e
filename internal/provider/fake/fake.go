// Package fake serves a scripted stand-in for two real model APIs on a
// loopback port: the Anthropic Messages API (POST /v1/messages) and the
// OpenAI Chat Completions API (POST /v1/chat/completions), each streaming
// (SSE) and non-streaming. Wisp's own adapters and the official SDKs talk to
// it unchanged, which is what makes it useful for tests, demos and
// benchmarks without a network. It speaks only the wire formats: it never
// imports wisp's provider packages and never calls a real provider.
//
// A script is a list of turns; each request consumes the next turn, whichever
// API it came in on, an error turn included. Its JSON form:
//
//	{"turns": [
//	  {"text": "Let me look.", "tool_calls": [{"name": "ls", "input": {"path": "."}}]},
//	  {"error": {"status": 500, "message": "overloaded", "retry_after": 1}},
//	  {"text": "Half a reply", "cut": true},
//	  {"text": "It has {{last_tool_result_lines}} entries.",
//	   "usage": {"input_tokens": 120, "output_tokens": 9}, "delay_ms": 50}
//	]}
//
// The fields of a turn:
//   - text: the assistant's text, streamed a word at a time. Placeholders
//     are filled from the request: {{last_tool_result}} (the newest tool
//     result's text) and {{last_tool_result_lines}} (its non-empty lines).
//   - tool_calls: tool calls after the text, input streamed in pieces.
//   - error: answer with this HTTP status and the provider's error body,
//     plus Retry-After and retry-after-ms when retry_after (seconds) is set.
//   - cut: drop the connection mid-way: inside the last tool call's input
//     when there are tool calls, else halfway through the text.
//   - endless: after the text, stream text deltas until the client hangs
//     up, never finishing the message.
//   - no_finish: finish the stream without a stop reason (OpenAI: no
//     finish_reason before [DONE]; Anthropic: no message_delta before
//     message_stop).
//   - body: answer 200 with this content_type and text instead of the
//     API's format (a proxy's HTML page, say).
//   - usage: token counts to report; by default derived from sizes
//     (InputTokens for the input).
//   - delay_ms: wait this long before answering.
//
// A tool call's raw_input is sent as its input verbatim, valid JSON or
// not, in place of input.
//
// A script's "context_limit" (tokens) refuses every request larger than
// it with the provider's context-overflow error (Anthropic's "prompt is
// too long", OpenAI's "context_length_exceeded"); such a request
// consumes no turn.
//
// When the script runs out, every further request gets the text
// "fake: script exhausted". The fake is deterministic: ids count requests
// and timestamps are fixed. docs/fake-provider.md says more.
package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Script is what the fake answers, one turn per request.
type Script struct {
	Turns []Turn `json:"turns"`
	// ContextLimit, when above 0, is the model's context window in
	// tokens: a request whose input (estimated as InputTokens does)
	// passes it is refused with the provider's own context-overflow
	// error, and consumes no turn.
	ContextLimit int `json:"context_limit,omitempty"`
}

// Turn is the answer to one request.
type Turn struct {
	Text      string      `json:"text,omitempty"`
	ToolCalls []ToolCall  `json:"tool_calls,omitempty"`
	Error     *ErrorReply `json:"error,omitempty"`
	Cut       bool        `json:"cut,omitempty"`
	Endless   bool        `json:"endless,omitempty"`
	NoFinish  bool        `json:"no_finish,omitempty"`
	Body      *RawBody    `json:"body,omitempty"`
	Usage     *Usage      `json:"usage,omitempty"`
	DelayMS   int         `json:"delay_ms,omitempty"`
}

// ToolCall is one tool the assistant asks to run.
type ToolCall struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	// RawInput is sent verbatim instead of Input, so a script can send
	// arguments that are not valid JSON.
	RawInput string `json:"raw_input,omitempty"`
}

// RawBody is a 200 answer in neither API's format.
type RawBody struct {
	ContentType string `json:"content_type"`
	Text        string `json:"text"`
}

// ErrorReply makes a turn fail with an HTTP error.
type ErrorReply struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
	// RetryAfter is in seconds; 0 sends no Retry-After.
	RetryAfter float64 `json:"retry_after,omitempty"`
}

// Usage is the token count a turn reports.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Recorded is one request as the fake received it.
type Recorded struct {
	Path   string
	Body   []byte
	Header http.Header
	// MaxTokens is the reply bound the request asked for: max_tokens, or
	// OpenAI's max_completion_tokens; 0 when it sent none.
	MaxTokens int
	// Time is when the request arrived (for start-up benchmarks).
	Time time.Time
}

// Exhausted is the text of every answer after the script's last turn.
const Exhausted = "fake: script exhausted"

// created is the fixed timestamp of every OpenAI reply, for determinism.
const created = 1700000000

// Demo is the built-in script for offline demos: the assistant lists the
// working directory with ls, then says how many entries it found.
func Demo() Script {
	return Script{Turns: []Turn{
		{
			Text:      "I will list the files in the current directory.",
			ToolCalls: []ToolCall{{Name: "ls", Input: json.RawMessage(`{"path":"."}`)}},
		},
		{Text: "The current directory has {{last_tool_result_lines}} entries. That is all this demo does: the fake provider answered offline."},
	}}
}

// LoadScript reads a script file in the JSON form above.
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("read fake script: %w", err)
	}
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("parse fake script %s: %w", path, err)
	}
	if err := s.validate(); err != nil {
		return Script{}, fmt.Errorf("fake script %s: %w", path, err)
	}
	return s, nil
}

func (s Script) validate() error {
	if s.ContextLimit < 0 {
		return fmt.Errorf("context_limit %d is negative", s.ContextLimit)
	}
	for i, t := range s.Turns {
		if t.Error != nil && (t.Error.Status < 400 || t.Error.Status > 599) {
			return fmt.Errorf("turn %d: error status %d is not an HTTP error status", i+1, t.Error.Status)
		}
		if t.Endless && (t.Cut || len(t.ToolCalls) > 0) {
			return fmt.Errorf("turn %d: an endless turn streams text only; it cannot also be cut or call tools", i+1)
		}
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				return fmt.Errorf("turn %d: tool call %d has no name", i+1, j+1)
			}
			if len(c.Input) > 0 && c.RawInput != "" {
				return fmt.Errorf("turn %d: tool call %s: input and raw_input exclude each other", i+1, c.Name)
			}
			if len(c.Input) > 0 && !json.Valid(c.Input) {
				return fmt.Errorf("turn %d: tool call %s: input is not valid JSON", i+1, c.Name)
			}
		}
	}
	return nil
}

// Server is a running fake.
type Server struct {
	ln  net.Listener
	srv *http.Server

	mu       sync.Mutex
	script   Script
	next     int
	requests []Recorded
	limit    int // the context limit in force (Script.ContextLimit)
}

// Start serves script on a free loopback port.
func Start(script Script) (*Server, error) {
	return Listen("127.0.0.1:0", script)
}

// Listen serves script on addr.
func Listen(addr string, script Script) (*Server, error) {
	if err := script.validate(); err != nil {
		return nil, fmt.Errorf("fake script: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fake provider: listen on %s: %w", addr, err)
	}
	s := &Server{ln: ln, script: script, limit: script.ContextLimit}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) { s.handle(w, r, anthropicAPI) })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.handle(w, r, openaiAPI) })
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the server's root, e.g. http://127.0.0.1:41234. The Anthropic
// base URL is this; the OpenAI base URL is this plus /v1.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server and drops open connections.
func (s *Server) Close() { _ = s.srv.Close() }

// SetContextLimit changes the context limit from the next request on;
// 0 lifts it.
func (s *Server) SetContextLimit(tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = max(tokens, 0)
}

// InputTokens is the fake's estimate of a request's input tokens, from
// its size in bytes: what it reports as usage unless a turn says
// otherwise, and what it holds against the context limit.
func InputTokens(body []byte) int64 { return int64(len(body)/4 + 1) }

// Requests returns a copy of every request received, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.requests))
	copy(out, s.requests)
	return out
}

type api int

const (
	anthropicAPI api = iota
	openaiAPI
)

// reply is a turn made concrete for one request.
type reply struct {
	n          int // 1-based request number, for ids
	model      string
	text       string
	calls      []ToolCall
	usage      Usage
	wantsUsage bool // OpenAI streams report usage only when asked
	noFinish   bool // send no stop reason
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request, a api) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	var req struct {
		Model               string `json:"model"`
		Stream              bool   `json:"stream"`
		MaxTokens           int    `json:"max_tokens"`
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		StreamOptions       struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	s.mu.Lock()
	s.requests = append(s.requests, Recorded{Path: r.URL.Path, Body: body, Header: r.Header.Clone(), Time: time.Now(),
		MaxTokens: max(req.MaxTokens, req.MaxCompletionTokens)})
	s.mu.Unlock()
	if err != nil {
		// A malformed request is the client's bug, not a scripted turn.
		writeError(w, a, http.StatusBadRequest, "read request: "+err.Error(), 0)
		return
	}

	s.mu.Lock()
	limit := s.limit
	if limit > 0 && InputTokens(body) > int64(limit) {
		s.mu.Unlock()
		writeOverflow(w, a, InputTokens(body), limit)
		return
	}
	s.next++
	n := s.next
	turn := Turn{Text: Exhausted}
	if n <= len(s.script.Turns) {
		turn = s.script.Turns[n-1]
	}
	s.mu.Unlock()

	if turn.DelayMS > 0 {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Duration(turn.DelayMS) * time.Millisecond):
		}
	}
	if e := turn.Error; e != nil {
		writeError(w, a, e.Status, e.Message, e.RetryAfter)
		return
	}
	if b := turn.Body; b != nil {
		w.Header().Set("Content-Type", b.ContentType)
		_, _ = io.WriteString(w, b.Text)
		return
	}
	rp := reply{n: n, model: req.Model, calls: turn.ToolCalls, wantsUsage: req.StreamOptions.IncludeUsage, noFinish: turn.NoFinish}
	rp.text = expand(turn.Text, body)
	if turn.Usage != nil {
		rp.usage = *turn.Usage
	} else {
		rp.usage = Usage{InputTokens: InputTokens(body), OutputTokens: int64(len(strings.Fields(rp.text)) + 20*len(rp.calls) + 1)}
	}

	if turn.Endless && req.Stream {
		streamForever(w, r, a, rp)
		return
	}
	var frames []string
	var cutAt int
	switch {
	case req.Stream && a == anthropicAPI:
		frames, cutAt = anthropicEvents(rp)
	case req.Stream:
		frames, cutAt = openaiChunks(rp)
	default:
		v := openaiCompletion(rp)
		if a == anthropicAPI {
			v = anthropicMessage(rp)
		}
		data, _ := json.Marshal(v)
		frames, cutAt = []string{string(data[:len(data)/2]), string(data[len(data)/2:])}, 1
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	}
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if turn.Cut {
		frames = frames[:cutAt]
	}
	rc := http.NewResponseController(w)
	for _, f := range frames {
		if _, err := io.WriteString(w, f); err != nil {
			return
		}
		_ = rc.Flush()
	}
	if turn.Cut {
		// Dropping the connection before the body is complete is what a
		// client sees when a stream dies on the way.
		panic(http.ErrAbortHandler)
	}
}

// streamForever answers with a stream that never finishes: the turn's
// text, then the same large delta again and again until the client hangs
// up or the server closes.
func streamForever(w http.ResponseWriter, r *http.Request, a api, rp reply) {
	head, again := endlessFrames(a, rp)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	for _, f := range head {
		if _, err := io.WriteString(w, f); err != nil {
			return
		}
	}
	for r.Context().Err() == nil {
		if _, err := io.WriteString(w, again); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

func writeError(w http.ResponseWriter, a api, status int, msg string, retryAfter float64) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatFloat(retryAfter, 'f', -1, 64))
		w.Header().Set("retry-after-ms", strconv.FormatInt(int64(retryAfter*1000), 10))
	}
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	body := obj{"error": obj{"message": msg, "type": typ, "param": nil, "code": nil}}
	if a == anthropicAPI {
		body = obj{"type": "error", "error": obj{"type": anthropicErrorType(status), "message": msg}}
	}
	data, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// writeOverflow refuses a request that does not fit the context limit,
// in the words and shape each provider uses for it.
func writeOverflow(w http.ResponseWriter, a api, tokens int64, limit int) {
	body := obj{"error": obj{
		"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", limit, tokens),
		"type":    "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
	}}
	if a == anthropicAPI {
		body = obj{"type": "error", "error": obj{"type": "invalid_request_error",
			"message": fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, limit)}}
	}
	// The providers send ">" as it is, not as \u003e.
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(bytes.TrimSuffix(data.Bytes(), []byte("\n")))
}

func anthropicErrorType(status int) string {
	t := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}[status]
	switch {
	case t != "":
		return t
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

// expand fills the placeholders of a turn's text from the request.
func expand(text string, body []byte) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	last := lastToolResult(body)
	lines := 0
	for l := range strings.Lines(last) {
		if strings.TrimSpace(l) != "" {
			lines++
		}
	}
	return strings.NewReplacer(
		"{{last_tool_result}}", last,
		"{{last_tool_result_lines}}", strconv.Itoa(lines),
	).Replace(text)
}

// lastToolResult finds the newest tool result in either wire format:
// an Anthropic tool_result block or an OpenAI role=tool message.
func lastToolResult(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	last := ""
	for _, m := range req.Messages {
		if m.Role == "tool" {
			last = textOf(m.Content)
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					last = textOf(b.Content)
				}
			}
		}
	}
	return last
}

// textOf reads content given as a string or as a list of text parts.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// pieces splits a tool call's JSON input into three parts on rune
// boundaries, so that clients must join partial JSON.
func pieces(input string) []string {
	r := []rune(input)
	size := max(1, (len(r)+2)/3)
	var out []string
	for len(r) > 0 {
		k := min(size, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func inputOf(c ToolCall) string {
	if c.RawInput != "" {
		return c.RawInput
	}
	if len(c.Input) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c.Input); err != nil {
		return string(c.Input)
	}
	return buf.String()
}
