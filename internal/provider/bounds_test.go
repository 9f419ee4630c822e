package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/anthropic"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/provider/openai"
)

// withLimit builds a wire's adapter with a response bound.
func withLimit(w wire, root string, limit int64) provider.Provider {
	if w.name == "anthropic" {
		return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: root, MaxResponseBytes: limit})
	}
	return openai.New(openai.Options{APIKey: "k", BaseURL: root + "/v1", MaxResponseBytes: limit})
}

func TestMaxTokensFor(t *testing.T) {
	cases := map[string]int{
		"claude-3-5-sonnet-20241022": 8192,
		"claude-3-haiku-20240307":    4096,
		"claude-3-7-sonnet-latest":   provider.DefaultMaxTokens,
		"claude-sonnet-4-5":          provider.DefaultMaxTokens,
		"gpt-4o-2024-08-06":          16384,
		"openai/gpt-4o-mini":         16384,
		"gpt-4":                      8192,
		"gpt-4-turbo-preview":        4096,
		"gpt-4.1":                    provider.DefaultMaxTokens,
		"GPT-3.5-Turbo":              4096,
		"o1-mini":                    provider.DefaultMaxTokens,
		"o100":                       provider.DefaultMaxTokens,
		"qwen3-coder":                provider.DefaultMaxTokens,
		"":                           provider.DefaultMaxTokens,
	}
	for model, want := range cases {
		if got := provider.MaxTokensFor(model); got != want {
			t.Errorf("MaxTokensFor(%q) = %d, want %d", model, got, want)
		}
	}
}

// Every request carries a reply bound: the one asked for, else the model's.
func TestEveryRequestCarriesMaxTokens(t *testing.T) {
	cases := []struct {
		model     string
		maxTokens int
		want      int
	}{
		{"test-model", 0, provider.DefaultMaxTokens},
		{"gpt-4o", 0, 16384},
		{"claude-3-5-haiku-latest", 0, 8192},
		{"test-model", 1234, 1234},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%s/%d", w.name, tc.model, tc.maxTokens), func(t *testing.T) {
				srv := startFake(t, fake.Turn{Text: "ok"})
				req := baseRequest()
				req.Model, req.MaxTokens = tc.model, tc.maxTokens
				if c := stream(context.Background(), w.new(srv.URL()), req); c.err != nil {
					t.Fatal(c.err)
				}
				if got := srv.Requests()[0].MaxTokens; got != tc.want {
					t.Errorf("request bound = %d, want %d", got, tc.want)
				}
			})
		}
	}
}

// A server that streams text forever is stopped at the response bound
// with an error that names it; memory stays within a few times the bound.
func TestEndlessStreamStopsAtTheBound(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			srv := startFake(t, fake.Turn{Text: "Here goes: ", Endless: true}, fake.Turn{Text: "never asked"})
			var got atomic.Int64
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			go func() {
				defer close(sampled)
				var m runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > peak.Load() {
						peak.Store(m.HeapAlloc)
					}
				}
			}()
			p := provider.WithRetry(withLimit(w, srv.URL(), 0), provider.RetryPolicy{})
			_, err := p.Stream(context.Background(), baseRequest(), provider.Callbacks{Text: func(d string) { got.Add(int64(len(d))) }})
			close(stop)
			<-sampled
			var tooLarge *provider.ResponseTooLargeError
			if !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "response exceeded 8 MiB of text and tool arguments; stopped reading") {
				t.Fatalf("err = %v, want the 8 MiB bound", err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: the bound must not be retried", n)
			}
			if got.Load() > provider.DefaultMaxResponseBytes {
				t.Errorf("%d bytes of text delivered, over the bound", got.Load())
			}
			growth := int64(peak.Load()) - int64(base)
			t.Logf("heap grew by %.1f MiB at most", float64(growth)/(1<<20))
			if growth > 8*provider.DefaultMaxResponseBytes {
				t.Errorf("heap grew by %d bytes, more than 8 times the bound", growth)
			}
		})
	}
}

// The raw stream is bounded too: one event over the bound, or a stream
// of events that carry nothing, ends the response.
func TestRawStreamBounds(t *testing.T) {
	const limit = 64 << 10
	cases := []struct {
		name  string
		serve func(w io.Writer) error
		want  string
	}{
		{"one huge line", func(w io.Writer) error {
			_, err := io.WriteString(w, "data: "+strings.Repeat("x", 2*(limit+64<<10))+"\n\n")
			return err
		}, "response exceeded 64 KiB of one stream event"},
		{"pings forever", func(w io.Writer) error {
			for {
				if _, err := io.WriteString(w, "event: ping\ndata: {\"type\":\"ping\"}\n\n"); err != nil {
					return err
				}
			}
		}, "response exceeded 1 MiB of stream data"},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				hs := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					rw.Header().Set("Content-Type", "text/event-stream")
					_ = tc.serve(rw)
				}))
				defer hs.Close()
				_, err := withLimit(w, hs.URL, limit).Stream(context.Background(), baseRequest(), provider.Callbacks{})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				if ok, _ := provider.Retryable(err); ok {
					t.Errorf("%v is retryable", err)
				}
			})
		}
	}
}

func TestHonestErrors(t *testing.T) {
	cases := []struct {
		name  string
		turns []fake.Turn
		check func(t *testing.T, srv *fake.Server, c call)
	}{
		{
			name:  "an HTML page with 200 says what came back",
			turns: []fake.Turn{{Body: &fake.RawBody{ContentType: "text/html; charset=utf-8", Text: "<!DOCTYPE html>\n<html><title>Sign in\x1b]0;pwned\x07</title>" + strings.Repeat("<p>filler</p>", 50)}}},
			check: func(t *testing.T, srv *fake.Server, c call) {
				want := `the server answered HTTP 200 OK with Content-Type text/html; charset=utf-8, not an event stream; the body begins: <!DOCTYPE html>\n<html><title>Sign in\x1b]0;pwned\x07</title>`
				if c.err == nil || !strings.Contains(c.err.Error(), want) {
					t.Fatalf("err = %v, want it to contain %q", c.err, want)
				}
				if strings.ContainsAny(c.err.Error(), "\x1b\x07\n") || strings.Contains(c.err.Error(), "stream cut") {
					t.Errorf("err = %q", c.err)
				}
				if len(srv.Requests()) != 1 {
					t.Errorf("%d requests; an unexpected body is not retried", len(srv.Requests()))
				}
			},
		},
		{
			name:  "a JSON document with 200 is not a cut stream",
			turns: []fake.Turn{{Body: &fake.RawBody{ContentType: "application/json", Text: `{"detail":"stream not supported"}`}}},
			check: func(t *testing.T, srv *fake.Server, c call) {
				if !errors.As(c.err, new(*provider.UnexpectedBodyError)) || !strings.Contains(c.err.Error(), `{"detail":"stream not supported"}`) {
					t.Fatalf("err = %v", c.err)
				}
			},
		},
		{
			name:  "an empty 200 says so",
			turns: []fake.Turn{{Body: &fake.RawBody{ContentType: "text/plain"}}},
			check: func(t *testing.T, srv *fake.Server, c call) {
				if c.err == nil || !strings.Contains(c.err.Error(), "HTTP 200 OK with an empty body (Content-Type text/plain)") {
					t.Fatalf("err = %v", c.err)
				}
			},
		},
		{
			name:  "malformed arguments in a whole message come back marked, not retried",
			turns: []fake.Turn{{Text: "Editing.", ToolCalls: []fake.ToolCall{{Name: "ls", RawInput: `{"path": "a.go", "text": "unterminated`}}}},
			check: func(t *testing.T, srv *fake.Server, c call) {
				if c.err != nil || len(c.retries) != 0 {
					t.Fatalf("err %v after %d retries", c.err, len(c.retries))
				}
				uses := c.resp.Message.ToolUses()
				if len(uses) != 1 || string(uses[0].Input) != "{}" || c.resp.Message.TextOf() != "Editing." {
					t.Fatalf("message = %+v", c.resp.Message)
				}
				if why := c.resp.Malformed[uses[0].ID]; !strings.HasPrefix(why, "not valid JSON") {
					t.Errorf("malformed = %q", why)
				}
				// The marked message is sendable as it stands.
				if _, err := json.Marshal(c.resp.Message); err != nil {
					t.Error(err)
				}
			},
		},
		{
			name:  "a stream without a stop reason that ends properly is whole",
			turns: []fake.Turn{{Text: "All of it.", NoFinish: true}, {Text: "never asked"}},
			check: func(t *testing.T, srv *fake.Server, c call) {
				if c.err != nil || c.resp.Message.TextOf() != "All of it." || len(srv.Requests()) != 1 {
					t.Fatalf("err %v, text %q, %d requests", c.err, c.resp.Message.TextOf(), len(srv.Requests()))
				}
			},
		},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				srv := startFake(t, tc.turns...)
				tc.check(t, srv, stream(context.Background(), w.new(srv.URL()), baseRequest()))
			})
		}
	}
}

// Some compatible servers send an event stream under another content
// type; the first bytes decide, so it still works.
func TestStreamUnderAnotherContentType(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, "\n: keep-alive\n\ndata: "+`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"fine"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer hs.Close()
	resp, err := openai.New(openai.Options{BaseURL: hs.URL}).Stream(context.Background(), baseRequest(), provider.Callbacks{})
	if err != nil || resp.Message.TextOf() != "fine" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

// BenchmarkLongReply reads a long reply (small deltas, as real servers send
// them) through each adapter from the fake, guard and budget included;
// BenchmarkGuard in guard_test.go times the guard alone on similar bytes.
func BenchmarkLongReply(b *testing.B) {
	text := strings.Repeat("word ", 20000)
	for _, w := range wires() {
		b.Run(w.name, func(b *testing.B) {
			turns := make([]fake.Turn, b.N)
			for i := range turns {
				turns[i] = fake.Turn{Text: text}
			}
			srv, err := fake.Start(fake.Script{Turns: turns})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			p := w.new(srv.URL())
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for range b.N {
				if _, err := p.Stream(context.Background(), baseRequest(), provider.Callbacks{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
