// Package wiretest builds the requests the provider adapters' differential
// tests encode both with their SDK and with their own encoder: a table of
// named histories and a generator that turns fuzz input into a history
// with every block kind, odd strings and odd tool inputs. It is imported
// by tests only and must not be imported by wisp itself.
package wiretest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
)

// Case is one named request.
type Case struct {
	Name string
	Req  provider.Request
}

// texts are strings that JSON encoders treat differently: escapes,
// control bytes, HTML characters, line separators, invalid UTF-8.
var texts = []string{
	"", "hello", "héllo wörld 世界 🎉", "\x00\x01\x07\x1b[2J\x1f\x7f", `quote " backslash \ slash /`,
	"<script>a && b</script>", "line\u2028sep\u2029para", "bad \xff\xfe utf-8 \xc3", "tab\tnew\nline\r\n",
	"\ufeffbom \U0010ffff", " ", strings.Repeat("x", 20000),
}

// inputs are tool inputs as a transcript may hold them: valid JSON of any
// kind and spacing, or nothing.
var inputs = []string{
	"", `{}`, `{"path":"server.go"}`, ` { "n" : 1.50e3 , "list": [1, 2, {"a": null}] } `, `[1,2]`, `"s"`, `null`,
	`{"t":"\u00e9\ud83c\udf89 \u2028 <&>"}`, `{"big":12345678901234567890}`, "{\"raw\":\"\xff\"}",
}

var schemas = []string{
	"", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
	`{"type":"object","properties":{},"additionalProperties":false}`, `{"properties":{"n":{"type":"integer"}},"required":[]}`,
}

// Table returns named requests covering each shape the adapters send.
func Table() []Case {
	use := func(id, name, input string) chat.Block {
		return chat.Block{Type: chat.ToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
	}
	result := func(id, text string, isErr bool) chat.Block {
		return chat.Block{Type: chat.ToolResult, ToolUseID: id, Text: text, IsError: isErr}
	}
	text := func(s string) chat.Block { return chat.Block{Type: chat.Text, Text: s} }
	msg := func(r chat.Role, b ...chat.Block) chat.Message { return chat.Message{Role: r, Content: b} }
	tools := []chat.ToolSpec{
		{Name: "read", Description: "Read a file.", Schema: json.RawMessage(schemas[1])},
		{Name: "bare"},
		{Name: "loose", Schema: json.RawMessage(schemas[3])},
	}
	cases := []Case{
		{"no messages", provider.Request{Model: "m"}},
		{"one prompt", provider.Request{Model: "m", Messages: []chat.Message{chat.UserText("hi")}}},
		{"system and tools", provider.Request{Model: "m", System: "be brief", Tools: tools, MaxTokens: 100,
			Messages: []chat.Message{chat.UserText("hi")}}},
		{"tool round trip", provider.Request{Model: "m", System: "s", Messages: []chat.Message{
			chat.UserText("read it"),
			msg(chat.Assistant, text("I will."), use("c1", "read", `{"path":"a.go"}`), use("c2", "read", "")),
			msg(chat.User, result("c1", "package a", false), result("c2", "", true), text("and then?")),
			msg(chat.Assistant, text("done")),
		}}},
		{"last message ends in a result", provider.Request{Model: "m", Messages: []chat.Message{
			chat.UserText("go"), msg(chat.Assistant, use("c1", "bash", `{"cmd":"ls"}`)), msg(chat.User, result("c1", "a\nb", false)),
		}}},
		{"last message has no block to send", provider.Request{Model: "m", Messages: []chat.Message{
			chat.UserText("go"), msg(chat.Assistant, text("")), msg(chat.User),
		}}},
		{"only empty texts", provider.Request{Model: "m", Messages: []chat.Message{msg(chat.User, text(""), text(""))}}},
		{"calls without text", provider.Request{Model: "m", Messages: []chat.Message{
			chat.UserText("x"), msg(chat.Assistant, use("", "", "null"), use("c", "n", `[1]`)),
		}}},
		{"unknown block type", provider.Request{Model: "m", Messages: []chat.Message{msg(chat.User, chat.Block{Type: "image"})}}},
		{"unknown role", provider.Request{Model: "m", Messages: []chat.Message{msg("system", text("x"))}}},
		{"unknown role with nothing to send", provider.Request{Model: "m", Messages: []chat.Message{chat.UserText("x"), msg("system", text(""))}}},
	}
	for i, s := range texts {
		cases = append(cases, Case{fmt.Sprintf("text %d", i), provider.Request{Model: "m", System: s, Messages: []chat.Message{
			msg(chat.User, text(s)), msg(chat.Assistant, text(s), use(s, s, inputs[i%len(inputs)])), msg(chat.User, result(s, s, i%2 == 0), text(s)),
		}}})
	}
	for i, in := range inputs {
		cases = append(cases, Case{fmt.Sprintf("input %d", i), provider.Request{Model: "m", Messages: []chat.Message{
			chat.UserText("x"), msg(chat.Assistant, use("c", "t", in)), msg(chat.User, result("c", "ok", false)),
		}}})
	}
	cases = append(cases, Case{"long session", provider.Request{Model: "m", System: "s", Tools: tools, Messages: Session(300)}})
	return cases
}

// Session returns a conversation of n rounds shaped like a coding session:
// a prompt, an answer calling a tool, and its ~2 KB result.
func Session(n int) []chat.Message {
	answer := strings.Repeat("I will look at the file and then change the function. ", 6)
	output := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) {\n\treturn\n}\n", 30)
	var out []chat.Message
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		out = append(out,
			chat.UserText("please refactor the handler in server.go"),
			chat.Message{Role: chat.Assistant, Content: []chat.Block{
				{Type: chat.Text, Text: answer},
				{Type: chat.ToolUse, ID: id, Name: "read", Input: json.RawMessage(`{"path":"server.go"}`)},
			}},
			chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: id, Text: output}}},
		)
	}
	return out
}

// Generate turns fuzz input into a request: data picks the shape and the
// strings, and text is one more string to use (the fuzzer mutates it
// towards whatever encoders get wrong).
func Generate(data []byte, text string) provider.Request {
	g := gen{data: data, pool: append([]string{text, text + text}, texts...)}
	req := provider.Request{Model: g.str(), MaxTokens: int(g.next()%3) * 1000}
	if g.next()%2 == 0 {
		req.System = g.str()
	}
	for range g.next() % 3 {
		req.Tools = append(req.Tools, chat.ToolSpec{Name: g.str(), Description: g.str(), Schema: json.RawMessage(schemas[g.pick(len(schemas))])})
	}
	for n := g.next() % 16; n > 0 && len(g.data) > 0; n-- {
		m := chat.Message{Role: []chat.Role{chat.User, chat.Assistant}[g.next()%2]}
		if g.next() == 255 {
			m.Role = "system"
		}
		for range g.next() % 5 {
			m.Content = append(m.Content, g.block())
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}

type gen struct {
	data []byte
	pool []string
}

func (g *gen) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *gen) pick(n int) int { return int(g.next()) % n }

// str is a string from the pool, sometimes cut at an arbitrary byte so
// that multi-byte characters are split.
func (g *gen) str() string {
	s := g.pool[g.pick(len(g.pool))]
	if c := g.next(); c >= 200 && len(s) > 0 {
		s = s[:int(c)%len(s)]
	}
	return s
}

func (g *gen) block() chat.Block {
	switch k := g.next() % 16; {
	case k < 6:
		return chat.Block{Type: chat.Text, Text: g.str()}
	case k < 10:
		return chat.Block{Type: chat.ToolUse, ID: g.str(), Name: g.str(), Input: json.RawMessage(g.input())}
	case k < 15:
		return chat.Block{Type: chat.ToolResult, ToolUseID: g.str(), Text: g.str(), IsError: g.next()%2 == 0}
	default:
		return chat.Block{Type: "image", Text: g.str()}
	}
}

// input is a tool input: one of the samples, or the pool's strings as a
// JSON object.
func (g *gen) input() string {
	if g.next()%2 == 0 {
		return inputs[g.pick(len(inputs))]
	}
	b, _ := json.Marshal(map[string]any{g.str(): []any{g.str(), float64(g.next()), nil, true}})
	return string(b)
}
