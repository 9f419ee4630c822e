package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/wirebody/wiretest"
)

// sdkParams is how the request was built for the SDK to encode before
// body.go took over the messages; the SDK's encoding of its result is the
// reference the differential tests hold our bytes to.
func sdkParams(req provider.Request) (sdk.MessageNewParams, error) {
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = int64(provider.MaxTokensFor(req.Model))
	}
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: maxTokens,
	}
	// Two cache breakpoints: the system prompt (which caches the tools
	// before it) and the newest message, so each turn of a loop re-reads
	// the whole conversation from the cache.
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for _, m := range req.Messages {
		blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Content))
		for _, b := range m.Content {
			switch b.Type {
			case chat.Text:
				if b.Text != "" {
					blocks = append(blocks, sdk.NewTextBlock(b.Text))
				}
			case chat.ToolUse:
				input := b.Input
				if len(input) == 0 {
					input = json.RawMessage(`{}`)
				}
				blocks = append(blocks, sdk.NewToolUseBlock(b.ID, input, b.Name))
			case chat.ToolResult:
				r := sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
				if b.IsError {
					r.IsError = sdk.Bool(true)
				}
				// The API refuses empty text blocks; an empty result is no content.
				if b.Text != "" {
					r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: b.Text}}}
				}
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolResult: &r})
			default:
				return p, fmt.Errorf("message block of unknown type %q", b.Type)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		switch m.Role {
		case chat.User:
			p.Messages = append(p.Messages, sdk.NewUserMessage(blocks...))
		case chat.Assistant:
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message of unknown role %q", m.Role)
		}
	}
	if n := len(p.Messages); n > 0 {
		var content []sdk.ContentBlockParamUnion
		if last := p.Messages[n-1]; last.OfUser != nil {
			content = last.OfUser.Content
		} else if last.OfAssistant != nil {
			content = last.OfAssistant.Content
		}
		if len(content) > 0 {
			if cc := content[len(content)-1].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
			}
		}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tp := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	return p, nil
}

// sdkBody returns the body the SDK sends for req, or the error building
// its params.
func sdkBody(t testing.TB, req provider.Request) ([]byte, error) {
	params, err := sdkParams(req)
	if err != nil {
		return nil, err
	}
	var capture wiretest.Capture
	c := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0), option.WithAPIKey("k"),
		option.WithBaseURL("http://wire.test/"), option.WithHTTPClient(capture.Client()))
	s := c.Messages.NewStreaming(context.Background(), params)
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
func checkBody(t testing.TB, p provider.Provider, capture *wiretest.Capture, req provider.Request) {
	t.Helper()
	want, wantErr := sdkBody(t, req)
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
	// One client for every case, each sent twice, so that encodings
	// remembered from one request are tried on the next.
	var capture wiretest.Capture
	p := New(Options{APIKey: "k", BaseURL: "http://wire.test/", HTTPClient: capture.Client()})
	for _, tc := range wiretest.Table() {
		t.Run(tc.Name, func(t *testing.T) {
			checkBody(t, p, &capture, tc.Req)
			checkBody(t, p, &capture, tc.Req)
		})
	}
}

// TestRememberedEncodingsFollowChanges changes a history between requests
// the ways a caller could (in place, by replacement, by cutting it short)
// and checks that each body is the SDK's for the history as it is then.
func TestRememberedEncodingsFollowChanges(t *testing.T) {
	var capture wiretest.Capture
	p := New(Options{APIKey: "k", BaseURL: "http://wire.test/", HTTPClient: capture.Client()})
	msgs := wiretest.Session(4)
	req := provider.Request{Model: "m", Messages: msgs}
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
		t.Run(s.name, func(t *testing.T) { checkBody(t, p, &capture, req) })
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
		var capture wiretest.Capture
		p := New(Options{APIKey: "k", BaseURL: "http://wire.test/", HTTPClient: capture.Client()})
		req := wiretest.Generate(data, text)
		checkBody(t, p, &capture, req)
		// Again with one more message, so that the earlier ones come
		// from what the first request remembered.
		req.Messages = append(req.Messages, chat.UserText(text))
		checkBody(t, p, &capture, req)
	})
}

// BenchmarkRequestBody encodes the body of the history a 10,000-record
// session holds (2,000 rounds of prompt, call and result: about 6 MB) the
// first time, with the SDK's encoder for comparison, and on the next turn,
// when all but the newest messages were seen before.
func BenchmarkRequestBody(b *testing.B) {
	req := provider.Request{Model: "m", System: "s", Messages: wiretest.Session(2000)}
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			params, err := sdkParams(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("first", func(b *testing.B) {
		var size int
		for b.Loop() {
			c := &client{}
			_, body, err := c.requestBody(req)
			if err != nil {
				b.Fatal(err)
			}
			size = body.Len()
		}
		b.ReportMetric(float64(size)/1e6, "body-MB")
	})
	b.Run("next turn", func(b *testing.B) {
		c := &client{}
		for b.Loop() {
			if _, _, err := c.requestBody(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
