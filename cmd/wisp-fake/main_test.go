package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(script, []byte(`{"turns":[{"text":"scripted hello"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		answer string
		stderr string
	}{
		{"demo", nil, 0, `"name":"ls"`, ""},
		{"script", []string{"-script", script}, 0, "scripted hello", ""},
		{"context limit", []string{"-script", script, "-context-limit", "2"}, 0, "prompt is too long: 4 tokens > 2 maximum", ""},
		{"missing script", []string{"-script", filepath.Join(t.TempDir(), "none.json")}, 1, "", "read fake script"},
		{"bad flag", []string{"-nope"}, 2, "", "flag provided but not defined"},
		{"stray argument", []string{"extra"}, 2, "", `unexpected argument "extra"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			outR, outW := io.Pipe()
			var stderr strings.Builder
			done := make(chan int, 1)
			go func() {
				code := run(ctx, tc.args, outW, &stderr)
				outW.Close()
				done <- code
			}()
			if tc.code == 0 {
				url, err := bufio.NewReader(outR).ReadString('\n')
				if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
					t.Fatalf("printed %q, %v", url, err)
				}
				res, err := http.Post(strings.TrimSpace(url)+"/v1/messages", "application/json", strings.NewReader(`{"model":"m"}`))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if !strings.Contains(string(body), tc.answer) {
					t.Errorf("answer = %s, want %s", body, tc.answer)
				}
				cancel()
			} else {
				_, _ = io.Copy(io.Discard, outR)
			}
			if code := <-done; code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d stderr %q; want %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
}
