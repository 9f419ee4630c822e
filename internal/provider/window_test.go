package provider_test

import (
	"testing"

	"github.com/wisp-agent/wisp/internal/provider"
)

func TestContextWindowFor(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"claude-sonnet-4-5", 200000},
		{"claude-sonnet-5-5", 200000},
		{"anthropic/claude-3-5-haiku-latest", 200000},
		{"gpt-4", 8192},
		{"gpt-4-32k-0613", 32768},
		{"gpt-4o-mini", 128000},
		{"gpt-4.1-mini", 1047576},
		{"gpt-5.5", 272000},
		{"o1-mini", 128000},
		{"o100", 0},
		{"qwen3-coder", 0},
		{"fake", 0},
	} {
		if got := provider.ContextWindowFor(tc.model); got != tc.want {
			t.Errorf("ContextWindowFor(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
}
