package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
)

func TestNotify(t *testing.T) {
	tests := []struct {
		name        string
		args        string
		interactive bool
		content     string
		isError     bool
		written     string
	}{
		{name: "delivered", args: `{"title":"Build","message":"tests pass"}`, interactive: true, content: "delivered", written: "\x1b]9;Build: tests pass\x07"},
		{name: "no title", args: `{"message":"done"}`, interactive: true, content: "delivered", written: "\x1b]9;done\x07"},
		{name: "no terminal", args: `{"title":"Build","message":"tests pass"}`, content: "not delivered: no terminal"},
		{name: "control characters", args: `{"title":"a\u001b]9;x","message":"line1\nline2\u0007\u009c end"}`, interactive: true, content: "delivered", written: "\x1b]9;a ]9;x: line1 line2   end\x07"},
		{name: "unicode at the limits", args: `{"title":"` + strings.Repeat("é", 64) + `","message":"` + strings.Repeat("日", 256) + `"}`, interactive: true, content: "delivered", written: "\x1b]9;" + strings.Repeat("é", 64) + ": " + strings.Repeat("日", 256) + "\x07"},
		{name: "title too long", args: `{"title":"` + strings.Repeat("t", 65) + `","message":"m"}`, interactive: true, isError: true, content: "title is 65 characters; the limit is 64"},
		{name: "message too long", args: `{"message":"` + strings.Repeat("m", 257) + `"}`, interactive: true, isError: true, content: "message is 257 characters; the limit is 256"},
		{name: "message missing", args: `{"title":"t"}`, interactive: true, isError: true, content: "message is required"},
		{name: "unknown field", args: `{"message":"m","level":"high"}`, interactive: true, isError: true, content: `unknown field "level"`},
		{name: "not an object", args: `"hi"`, interactive: true, isError: true, content: "notify arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			n := Notify(&out)
			res, err := n.Run(context.Background(), &tool.Env{Interactive: tc.interactive}, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError || !strings.Contains(res.Content, tc.content) {
				t.Fatalf("result %+v, want %q (error %v)", res, tc.content, tc.isError)
			}
			if out.String() != tc.written {
				t.Fatalf("wrote %q, want %q", out.String(), tc.written)
			}
		})
	}
}

func TestNotifyRateLimit(t *testing.T) {
	var out bytes.Buffer
	n := Notify(&out)
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	n.now = func() time.Time { return now }
	env := &tool.Env{Interactive: true}
	call := func() tool.Result {
		res, err := n.Run(context.Background(), env, json.RawMessage(`{"message":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := 0; i < 5; i++ {
		if res := call(); res.IsError {
			t.Fatalf("call %d: %s", i+1, res.Content)
		}
		now = now.Add(10 * time.Second)
	}
	// now is 50s after the first call.
	if res := call(); !res.IsError || !strings.Contains(res.Content, "at most 5 notifications a minute; the next is possible in 10s") {
		t.Fatalf("6th call: %+v", res)
	}
	now = now.Add(10 * time.Second)
	if res := call(); res.IsError {
		t.Fatalf("call after the first left the window: %s", res.Content)
	}
	if res := call(); !res.IsError {
		t.Fatalf("window full again: %+v", res)
	}
	if got := strings.Count(out.String(), "\x1b]9;"); got != 6 {
		t.Fatalf("%d notifications written, want 6", got)
	}
}

type notifyFailingWriter struct{}

func (notifyFailingWriter) Write([]byte) (int, error) { return 0, errors.New("terminal gone") }

func TestNotifyWriteError(t *testing.T) {
	res, err := Notify(notifyFailingWriter{}).Run(context.Background(), &tool.Env{Interactive: true}, json.RawMessage(`{"message":"m"}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content, "not delivered: terminal gone") {
		t.Fatalf("got %+v, %v", res, err)
	}
}
