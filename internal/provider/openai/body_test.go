package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/wirebody/wiretest"
)

// sdkParams and sdkMessage are how the request was built for the SDK to
// encode before body.go took over the messages; the SDK's encoding of
// their result is the reference the differential tests hold our bytes to.
func (c *client) sdkParams(req provider.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = int64(provider.MaxTokensFor(req.Model))
	}
	if c.compatible {
		p.MaxTokens = param.NewOpt(maxTokens)
	} else {
		p.MaxCompletionTokens = param.NewOpt(maxTokens)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		msgs, err := sdkMessage(m)
		if err != nil {
			return p, err
		}
		p.Messages = append(p.Messages, msgs...)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if len(t.Schema) > 0 {
			if err := json.Unmarshal(t.Schema, &fn.Parameters); err != nil {
				return p, fmt.Errorf("tool %s: input schema is not a JSON object: %w", t.Name, err)
			}
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	return p, nil
}

// sdkMessage maps one chat message onto the wire's messages. A user
// message's tool results become role=tool messages placed first, because
// they must directly follow the assistant message that asked for them.
func sdkMessage(m chat.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var out []sdk.ChatCompletionMessageParamUnion
	var text strings.Builder
	var calls []sdk.ChatCompletionMessageToolCallUnionParam
	for _, b := range m.Content {
		switch b.Type {
		case chat.Text:
			text.WriteString(b.Text)
		case chat.ToolResult:
			// The wire has no error flag; the result text has to say it.
			out = append(out, sdk.ToolMessage(b.Text, b.ToolUseID))
		case chat.ToolUse:
			args := string(b.Input)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args},
				},
			})
		default:
			return nil, fmt.Errorf("message block of unknown type %q", b.Type)
		}
	}
	switch m.Role {
	case chat.User:
		if text.Len() > 0 {
			out = append(out, sdk.UserMessage(text.String()))
		}
	case chat.Assistant:
		if text.Len() == 0 && len(calls) == 0 {
			break
		}
		a := sdk.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if text.Len() > 0 {
			a.Content.OfString = param.NewOpt(text.String())
		}
		out = append(out, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
	default:
		return nil, fmt.Errorf("message of unknown role %q", m.Role)
	}
	return out, nil
}

// bases are the two kinds of server: OpenAI itself and a compatible one.
var bases = []string{DefaultBaseURL, "http://wire.test/v1/"}

// kind names a base in test names.
func kind(base string) string {
	if base == DefaultBaseURL {
		return "openai"
	}
	return "compatible"
}

// sdkBody returns the body the SDK sends for req to base, or the error
// building its params.
func sdkBody(t testing.TB, base string, req provider.Request) ([]byte, error) {
	c := &client{compatible: strings.TrimRight(base, "/") != strings.TrimRight(DefaultBaseURL, "/")}
	params, err := c.sdkParams(req)
	if err != nil {
		return nil, err
	}
	var capture wiretest.Capture
	svc := sdk.NewChatCompletionService(option.WithBaseURL(base), option.WithHTTPClient(capture.Client()),
		option.WithMaxRetries(0), option.WithAPIKey("k"))
	s := svc.NewStreaming(context.Background(), params)
	for s.Next() {
	}
	_ = s.Close()
	if capture.Count() != 1 {
		t.Fatalf("the SDK sent %d requests", capture.Count())
	}
	return capture.Last(), nil
}

// ourBody returns the body p sends for req, or the error Stream returns
// without sending anything.
func ourBody(t testing.TB, p provider.Provider, capture *wiretest.Capture, req provider.Request) ([]byte, error) {
	before := capture.Count()
	_, err := p.Stream(context.Background(), req, provider.Callbacks{})
	switch capture.Count() - before {
	case 0:
		if err == nil {
			t.Fatal("no request sent and no error")
		}
		return nil, err
	case 1:
		return capture.Last(), nil
	default:
		t.Fatalf("%d requests sent", capture.Count()-before)
		return nil, nil
	}
}

// checkBody fails t when p's body for req does not decode to the same
// JSON value as the SDK's, or when only one of them fails.
func checkBody(t testing.TB, base string, p provider.Provider, capture *wiretest.Capture, req provider.Request) {
	t.Helper()
	want, wantErr := sdkBody(t, base, req)
	got, gotErr := ourBody(t, p, capture, req)
	switch {
	case wantErr != nil || gotErr != nil:
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("SDK's error %v, ours %v", wantErr, gotErr)
		}
	default:
		if err := wiretest.SameJSON(got, want); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBodyMatchesSDK(t *testing.T) {
	for _, base := range bases {
		// One client for every case, each sent twice, so that encodings
		// remembered from one request are tried on the next.
		var capture wiretest.Capture
		p := New(Options{APIKey: "k", BaseURL: base, HTTPClient: capture.Client()})
		for _, tc := range wiretest.Table() {
			t.Run(kind(base)+" "+tc.Name, func(t *testing.T) {
				checkBody(t, base, p, &capture, tc.Req)
				checkBody(t, base, p, &capture, tc.Req)
			})
		}
	}
}

// TestRememberedEncodingsFollowChanges changes a history between requests
// the ways a caller could (in place, by replacement, by cutting it short)
// and checks that each body is the SDK's for the history as it is then.
func TestRememberedEncodingsFollowChanges(t *testing.T) {
	base := bases[1]
	var capture wiretest.Capture
	p := New(Options{APIKey: "k", BaseURL: base, HTTPClient: capture.Client()})
	msgs := wiretest.Session(4)
	req := provider.Request{Model: "m", System: "s", Messages: msgs}
	steps := []struct {
		name   string
		change func()
	}{
		{"first", func() {}},
		{"unchanged", func() {}},
		{"grown", func() { req.Messages = append(req.Messages, chat.UserText("more")) }},
		{"tool input changed in place", func() { copy(msgs[1].Content[1].Input, `{"path":"client.go"}`) }},
		{"block replaced in place", func() {
			msgs[2].Content[0] = chat.Block{Type: chat.ToolResult, ToolUseID: "call_0", Text: "other", IsError: true}
		}},
		{"block appended", func() { msgs[0].Content = append(msgs[0].Content, chat.Block{Type: chat.Text, Text: "also"}) }},
		{"role changed", func() { msgs[3].Role = chat.Assistant }},
		{"cut short", func() { req.Messages = req.Messages[:5] }},
		{"earlier messages dropped", func() { req.Messages = req.Messages[2:] }},
	}
	for _, s := range steps {
		s.change()
		before, err := json.Marshal(req.Messages)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(s.name, func(t *testing.T) { checkBody(t, base, p, &capture, req) })
		after, _ := json.Marshal(req.Messages)
		if string(before) != string(after) {
			t.Fatalf("%s: encoding changed the history", s.name)
		}
	}
}

func FuzzBodyMatchesSDK(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, "seed")
	f.Add([]byte("a much longer seed that makes many messages of every kind \x00\xff\xc8\xfe"), "\x00é\u2028\"\\<>&\xff")
	for i := range 8 {
		f.Add([]byte(fmt.Sprintf("%d%s", i, "\x05\x09\x0d\x01\x02\x03\x04\x06\x07\x08\x0a\x0b\x0c\x0e\x0f\xc9\xd3")), "")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		if len(data) > 512 || len(text) > 4096 {
			t.Skip("larger inputs add time, not shapes")
		}
		base := bases[len(data)%2]
		var capture wiretest.Capture
		p := New(Options{APIKey: "k", BaseURL: base, HTTPClient: capture.Client()})
		req := wiretest.Generate(data, text)
		checkBody(t, base, p, &capture, req)
		// Again with one more message, so that the earlier ones come
		// from what the first request remembered.
		req.Messages = append(req.Messages, chat.UserText(text))
		checkBody(t, base, p, &capture, req)
	})
}
