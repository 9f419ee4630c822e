package frontend

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/trust"
)

func TestAskTrust(t *testing.T) {
	proj := "/home/u/src/proj"
	tests := []struct {
		name    string
		lines   []string
		close   bool
		cancel  bool
		want    bool
		wantErr error
		asked   int // how many times the question shows
	}{
		{name: "y", lines: []string{"y"}, want: true, asked: 1},
		{name: "yes", lines: []string{"yes\n"}, want: true, asked: 1},
		{name: "YES padded", lines: []string{"  YES  "}, want: true, asked: 1},
		{name: "n", lines: []string{"n"}, asked: 1},
		{name: "no", lines: []string{"No"}, asked: 1},
		{name: "empty is no", lines: []string{""}, asked: 1},
		{name: "garbage asks again", lines: []string{"sure", "y"}, want: true, asked: 2},
		{name: "input closed", close: true, wantErr: trust.ErrNoAnswer, asked: 1},
		{name: "context cancelled", cancel: true, wantErr: context.Canceled, asked: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := make(chan string, len(tc.lines))
			for _, l := range tc.lines {
				in <- l
			}
			if tc.close {
				close(in)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			var out bytes.Buffer
			got, err := AskTrust(ctx, in, &out, proj)
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("AskTrust = %v, %v; want %v, %v", got, err, tc.want, tc.wantErr)
			}
			q := "Do you trust the files in /home/u/src/proj? [y/n] "
			if n := strings.Count(out.String(), q); n != tc.asked {
				t.Fatalf("question shown %d times, want %d:\n%s", n, tc.asked, out.String())
			}
			if !strings.Contains(out.String(), "AGENTS.md") || !strings.Contains(out.String(), "skills") {
				t.Fatalf("no explanation:\n%s", out.String())
			}
		})
	}
}
