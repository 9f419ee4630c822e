package sdk_test

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/sdk"
)

func textTurns(n int) []fake.Turn {
	turns := make([]fake.Turn, n)
	for i := range turns {
		turns[i] = fake.Turn{Text: "an answer of a few words"}
	}
	return turns
}

// BenchmarkPrompt is one prompt and its answer through the SDK, with an
// events reader; BenchmarkPromptCore, the same through the session core
// with a subscriber that drops everything, is its baseline.
func BenchmarkPrompt(b *testing.B) {
	opts, _, stop := fakeModel(textTurns(b.N)...)
	defer stop()
	opts.Stderr = io.Discard
	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	go func() {
		for range s.Events() {
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Prompt(context.Background(), "hi"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPromptCore(b *testing.B) {
	opts, _, stop := fakeModel(textTurns(b.N)...)
	defer stop()
	home := b.TempDir()
	getenv := func(k string) string {
		switch k {
		case "WISP_HOME":
			return home
		case "WISP_API_KEY":
			return "test-key"
		}
		if strings.HasPrefix(k, "WISP_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") {
			return ""
		}
		return os.Getenv(k)
	}
	sys := host.IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv, Workdir: opts.Dir}
	s, err := host.New(context.Background(), host.Options{Provider: "anthropic", BaseURL: opts.BaseURL, MaxToolIters: -1}, sys, host.Frontend{Mode: "sdk"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	defer s.Subscribe(func(event.Event) {})()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Prompt(context.Background(), "hi"); err != nil {
			b.Fatal(err)
		}
	}
}
