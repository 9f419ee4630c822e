package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// compactRig is a wisp home, a workspace and a fake provider, so that
// sessions can be opened, closed and resumed against the same server.
type compactRig struct {
	srv    *fake.Server
	env    map[string]string
	sys    IO
	stderr *bytes.Buffer
	dir    string // the session folder
}

func newCompactRig(t *testing.T, wire string, script fake.Script, settings string, exts ...Extension) *compactRig {
	t.Helper()
	srv, err := fake.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	base := t.TempDir()
	r := &compactRig{srv: srv, stderr: &bytes.Buffer{}, dir: filepath.Join(base, "sessions")}
	r.env = map[string]string{
		"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": wire,
		"ANTHROPIC_API_KEY": "test-key", "OPENAI_API_KEY": "test-key",
		"ANTHROPIC_BASE_URL": srv.URL(), "OPENAI_BASE_URL": srv.URL() + "/v1",
	}
	r.sys = IO{Getenv: func(k string) string { return r.env[k] }, Stderr: r.stderr, Workdir: filepath.Join(base, "ws"), Extensions: exts}
	for _, d := range []string{r.sys.Workdir, r.env["HOME"], r.env["WISP_HOME"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		if err := os.WriteFile(filepath.Join(r.env["WISP_HOME"], "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// open starts (or, with o.Resume, resumes) a session; the caller closes it.
func (r *compactRig) open(t *testing.T, o Options) *Session {
	t.Helper()
	o.SessionDir, o.MaxToolIters, o.Yes = r.dir, -1, true
	s, err := New(context.Background(), o, r.sys, Frontend{Mode: "print"})
	if err != nil {
		t.Fatalf("new session: %v\n%s", err, r.stderr)
	}
	return s
}

func (r *compactRig) prompt(t *testing.T, s *Session, text string) string {
	t.Helper()
	final, err := s.Prompt(context.Background(), text)
	if err != nil {
		t.Fatalf("prompt %q: %v\n%s", text, err, r.stderr)
	}
	return final.TextOf()
}

// sent is what one recorded request carried, in either wire format.
type sent struct {
	system string
	users  []string // each user message's text, tool results left out
	tools  int
}

func decodeSent(t *testing.T, body []byte) sent {
	t.Helper()
	var req struct {
		System   json.RawMessage `json:"system"`
		Tools    []any           `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := sent{system: textOfRaw(req.System), tools: len(req.Tools)}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			out.system += textOfRaw(m.Content)
		case "user":
			out.users = append(out.users, textOfRaw(m.Content))
		}
	}
	return out
}

// textOfRaw reads content given as a string or as blocks, text only.
func textOfRaw(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

var wires = []string{"anthropic", "openai"}

// /compact between runs: one request without tools asks for the summary
// (with the person's instructions); the next request starts with the
// summary and the latest turn, the older turns gone; the transcript keeps
// them before its checkpoint, and a resumed session starts from it.
func TestCompactManualAndResume(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			r := newCompactRig(t, wire, fake.Script{Turns: []fake.Turn{
				{Text: "answer one"}, {Text: "answer two"}, {Text: "## Goal\nSUMMARY-TEXT"}, {Text: "answer three"}, {Text: "answer four"},
			}}, "")
			s := r.open(t, Options{})
			r.prompt(t, s, "OLDEST-QUESTION")
			r.prompt(t, s, "LATEST-QUESTION")
			if err := s.Compact(context.Background(), "keep the port numbers"); err != nil {
				t.Fatalf("compact: %v\n%s", err, r.stderr)
			}
			if got := r.prompt(t, s, "NEXT-QUESTION"); got != "answer three" {
				t.Errorf("answer after compaction = %q", got)
			}
			reqs := r.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4", len(reqs))
			}
			sum := decodeSent(t, reqs[2].Body)
			if sum.tools != 0 || sum.system != summarySystem || len(sum.users) != 1 ||
				!strings.Contains(sum.users[0], "OLDEST-QUESTION") || !strings.Contains(sum.users[0], "Also: keep the port numbers") {
				t.Errorf("summary request: %d tools, system %q, users %q", sum.tools, sum.system, sum.users)
			}
			after := decodeSent(t, reqs[3].Body)
			checkStartsFromSummary(t, after, "LATEST-QUESTION", "NEXT-QUESTION")
			if !strings.Contains(r.stderr.String(), "wisp: compacted the conversation (as asked): 2 messages summarised, the latest turn kept as it was") {
				t.Errorf("stderr: %s", r.stderr)
			}
			id := s.ID()
			s.Close()

			path, err := transcript.Find(r.dir, id)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			old, cp := bytes.Index(data, []byte("OLDEST-QUESTION")), bytes.Index(data, []byte(`{"type":"checkpoint"`))
			if old < 0 || cp < 0 || old > cp {
				t.Errorf("the old history is not kept before the checkpoint (at %d and %d)", old, cp)
			}

			s2 := r.open(t, Options{Resume: id})
			defer s2.Close()
			r.prompt(t, s2, "RESUMED-QUESTION")
			reqs = r.srv.Requests()
			checkStartsFromSummary(t, decodeSent(t, reqs[len(reqs)-1].Body), "LATEST-QUESTION", "NEXT-QUESTION", "RESUMED-QUESTION")
		})
	}
}

// checkStartsFromSummary: the request's first user message is the
// summary followed by the kept turn's prompt, the oldest question is
// gone, and every later prompt is there.
func checkStartsFromSummary(t *testing.T, req sent, kept string, later ...string) {
	t.Helper()
	if len(req.users) == 0 || !strings.HasPrefix(req.users[0], summaryMark) ||
		!strings.Contains(req.users[0], "SUMMARY-TEXT") || !strings.HasSuffix(req.users[0], kept) {
		t.Fatalf("first user message does not start from the summary: %q", req.users)
	}
	all := strings.Join(req.users, "\n")
	if strings.Contains(all, "OLDEST-QUESTION") {
		t.Errorf("the summarised history was sent: %q", req.users)
	}
	for _, l := range later {
		if !strings.Contains(all, l) {
			t.Errorf("%s missing from %q", l, req.users)
		}
	}
}

// Once the last request's input passes the window minus the reserve, the
// conversation is compacted before the next request; below it, never.
func TestCompactAutomatic(t *testing.T) {
	tests := []struct {
		name    string
		input   int64 // what the first answer reports
		compact bool
		fails   bool // the summary request fails
	}{
		{"past the threshold", 15001, true, false},
		{"at the threshold", 15000, false, false},
		{"the summary fails: a warning, the run goes on", 15001, true, true},
	}
	for _, wire := range wires {
		for _, tc := range tests {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				turns := []fake.Turn{{Text: "answer one", Usage: &fake.Usage{InputTokens: tc.input, OutputTokens: 3}}}
				switch {
				case tc.fails:
					turns = append(turns, fake.Turn{Error: &fake.ErrorReply{Status: 400, Message: "no summaries today"}})
				case tc.compact:
					turns = append(turns, fake.Turn{Text: "SUMMARY-TEXT"})
				}
				turns = append(turns, fake.Turn{Text: "answer two"})
				// A 20,000-token window keeps a quarter (5,000) free.
				r := newCompactRig(t, wire, fake.Script{Turns: turns}, `{"context_window": 20000}`)
				s := r.open(t, Options{})
				defer s.Close()
				r.prompt(t, s, "OLDEST-QUESTION")
				if got := r.prompt(t, s, "LATEST-QUESTION"); got != "answer two" {
					t.Errorf("answer = %q", got)
				}
				reqs := r.srv.Requests()
				if !tc.compact {
					if len(reqs) != 2 || strings.Contains(r.stderr.String(), "compacted") {
						t.Errorf("%d requests, stderr %s; want no compaction", len(reqs), r.stderr)
					}
					return
				}
				if len(reqs) != 3 || decodeSent(t, reqs[1].Body).tools != 0 {
					t.Fatalf("%d requests, want 3 with the summary request second", len(reqs))
				}
				if tc.fails {
					if users := decodeSent(t, reqs[2].Body).users; len(users) != 2 || users[0] != "OLDEST-QUESTION" {
						t.Errorf("after a failed compaction the request holds %q, want the whole conversation", users)
					}
					if !strings.Contains(r.stderr.String(), "wisp: warning: the conversation is near the model's context window but could not be compacted: compact the conversation: ") ||
						!strings.Contains(r.stderr.String(), "no summaries today") {
						t.Errorf("stderr: %s", r.stderr)
					}
					return
				}
				// The kept turn is the prompt about to be answered.
				checkStartsFromSummary(t, decodeSent(t, reqs[2].Body), "LATEST-QUESTION")
				if !strings.Contains(r.stderr.String(), "the last request used 15001 of the model's 20000 tokens") {
					t.Errorf("stderr: %s", r.stderr)
				}
			})
		}
	}
}

// probeTool runs and then lowers the fake's context limit so that the
// next request overflows while a compacted one fits.
type probeTool struct {
	class tool.Class
	srv   func() *fake.Server
}

func (p *probeTool) Spec() tool.Spec {
	return tool.Spec{Name: "probe", Description: "probes", Schema: json.RawMessage(`{"type":"object"}`), Class: p.class}
}

func (p *probeTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	srv := p.srv()
	first := srv.Requests()[0]
	// The summary request is about 300 tokens larger than the first, the
	// retried one about 60; the next one, with the call's 4,000 bytes of
	// arguments, about 1,000.
	srv.SetContextLimit(int(fake.InputTokens(first.Body)) + 600)
	return tool.Result{Content: "probed"}, nil
}

func (p *probeTool) CommandLine(json.RawMessage) (string, error) { return "true", nil }

func (p *probeTool) Subject(json.RawMessage) (tool.Subject, error) {
	return tool.Subject{Paths: []string{"probe.txt"}}, nil
}

// A request refused as too long is compacted and retried once, unless a
// mutating or command tool ran in the turn: then the run stops and says
// to /compact.
func TestCompactOnOverflow(t *testing.T) {
	big := json.RawMessage(`{"note":"` + strings.Repeat("x", 4000) + `"}`)
	tests := []struct {
		name  string
		class tool.Class
		retry bool
	}{
		{"after a read", tool.Read, true},
		{"after a mutating call", tool.Mutating, false},
		{"after a command", tool.Command, false},
	}
	for _, wire := range wires {
		for _, tc := range tests {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				var r *compactRig
				probe := &probeTool{class: tc.class, srv: func() *fake.Server { return r.srv }}
				r = newCompactRig(t, wire, fake.Script{Turns: []fake.Turn{
					{ToolCalls: []fake.ToolCall{{Name: "probe", Input: big}}},
					{Text: "SUMMARY-TEXT"},
					{Text: "done"},
				}}, "", Extension{Tool: probe})
				s := r.open(t, Options{AllowTools: []string{"probe"}})
				defer s.Close()
				final, err := s.Prompt(context.Background(), "LATEST-QUESTION")
				reqs := r.srv.Requests()
				if !tc.retry {
					if !errors.Is(err, agent.ErrContextOverflow) || !strings.Contains(err.Error(), "run /compact") {
						t.Fatalf("err = %v, want an overflow that says to run /compact\n%s", err, r.stderr)
					}
					if len(reqs) != 2 {
						t.Errorf("%d requests, want 2 (no summary, no retry)", len(reqs))
					}
					r.stderr.Reset()
					_ = s.Finish(err)
					if want := "run /compact in `wisp --resume " + s.ID() + "`"; !strings.Contains(r.stderr.String(), want) {
						t.Errorf("finish says %q, want %q", r.stderr, want)
					}
					return
				}
				if err != nil || final.TextOf() != "done" {
					t.Fatalf("answer %q, err %v\n%s", final.TextOf(), err, r.stderr)
				}
				if len(reqs) != 4 || decodeSent(t, reqs[2].Body).tools != 0 {
					t.Fatalf("%d requests, want 4: the overflow, the summary, the retry", len(reqs))
				}
				checkStartsFromSummary(t, decodeSent(t, reqs[3].Body), "LATEST-QUESTION")
				if !strings.Contains(r.stderr.String(), "the provider refused the conversation as too long; retrying once") {
					t.Errorf("stderr: %s", r.stderr)
				}
			})
		}
	}
}

// Compact is refused while a run is live, and there is nothing to
// compact in a conversation of one prompt.
func TestCompactRefused(t *testing.T) {
	r := newCompactRig(t, "anthropic", fake.Script{Turns: []fake.Turn{{Text: "slow", DelayMS: 400}}}, "")
	s := r.open(t, Options{NoSession: true})
	defer s.Close()
	if err := s.Compact(context.Background(), ""); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("empty conversation: err = %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.Prompt(context.Background(), "q"); done <- err }()
	for !s.Running() {
		time.Sleep(time.Millisecond)
	}
	err := s.Compact(context.Background(), "")
	if !errors.Is(err, ErrCompactBusy) || !errors.Is(err, ErrBusy) {
		t.Errorf("while running: err = %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The kept turn starts at a prompt and keeps every call with its result;
// over the budget, or when it is the whole conversation, only the prompt
// is kept; an earlier summary is never kept verbatim.
func TestKeptTurn(t *testing.T) {
	text := func(role chat.Role, s string) chat.Message {
		return chat.Message{Role: role, Content: []chat.Block{{Type: chat.Text, Text: s}}}
	}
	call := func(id string) chat.Message {
		return chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.ToolUse, ID: id, Name: "ls", Input: json.RawMessage(`{}`)}}}
	}
	result := func(id, steer string) chat.Message {
		m := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: id, Text: "r"}}}
		if steer != "" {
			m.Content = append(m.Content, chat.Block{Type: chat.Text, Text: steer})
		}
		return m
	}
	merged := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: summaryMark + "\nold"}, {Type: chat.Text, Text: "q1"}}}
	tests := []struct {
		name   string
		msgs   []chat.Message
		budget int
		want   []chat.Message
		ok     bool
	}{
		{"the latest turn", []chat.Message{text(chat.User, "q1"), text(chat.Assistant, "a1"), text(chat.User, "q2"), text(chat.Assistant, "a2")}, 1000,
			[]chat.Message{text(chat.User, "q2"), text(chat.Assistant, "a2")}, true},
		{"calls keep their results; a steer is not a prompt", []chat.Message{text(chat.User, "q1"), text(chat.Assistant, "a1"),
			text(chat.User, "q2"), call("c1"), result("c1", "steer"), call("c2"), result("c2", "")}, 1000,
			[]chat.Message{text(chat.User, "q2"), call("c1"), result("c1", "steer"), call("c2"), result("c2", "")}, true},
		{"over the budget: the prompt alone", []chat.Message{text(chat.User, "q1"), text(chat.Assistant, "a1"), text(chat.User, "q2"), text(chat.Assistant, strings.Repeat("a", 200))}, 100,
			[]chat.Message{text(chat.User, "q2")}, true},
		{"one turn is all there is", []chat.Message{text(chat.User, "q1"), call("c1"), result("c1", ""), text(chat.Assistant, "a1")}, 1000,
			[]chat.Message{text(chat.User, "q1")}, true},
		{"an earlier summary is dropped from the kept prompt", []chat.Message{merged, text(chat.Assistant, "a1")}, 1000,
			[]chat.Message{text(chat.User, "q1")}, true},
		{"a lone prompt: nothing to compact", []chat.Message{text(chat.User, "q1")}, 1000, nil, false},
		{"nothing at all", nil, 1000, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := keptTurn(tc.msgs, tc.budget)
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("keptTurn = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
			if ok {
				checkPaired(t, withSummary("S", got))
			}
		})
	}
}

// checkPaired fails when a call has no result in the message after it.
func checkPaired(t *testing.T, msgs []chat.Message) {
	t.Helper()
	for i, m := range msgs {
		for _, c := range m.ToolUses() {
			found := false
			if i+1 < len(msgs) {
				for _, b := range msgs[i+1].Content {
					found = found || (b.Type == chat.ToolResult && b.ToolUseID == c.ID)
				}
			}
			if !found {
				t.Errorf("call %s separated from its result", c.ID)
			}
		}
	}
}

// The text sent for a summary fits its budget by leaving out the oldest
// messages (never an earlier summary) and cuts long results in the middle.
func TestDigest(t *testing.T) {
	long := "HEAD" + strings.Repeat("x", 10000) + "TAIL"
	msgs := []chat.Message{
		{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: summaryMark + "\nEARLIER"}, {Type: chat.Text, Text: "q0"}}},
		chat.UserText("OLD-1"), chat.UserText("OLD-2"),
		{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: "c", Text: long}}},
	}
	tests := []struct {
		name     string
		budget   int
		has, not []string
	}{
		{"all fits", 1 << 20, []string{"EARLIER", "OLD-1", "OLD-2", "HEAD", "TAIL", "bytes left out"}, []string{"earlier messages left out"}},
		{"oldest left out", len(renderMessage(msgs[0])) + len(renderMessage(msgs[3])), []string{"EARLIER", "[2 earlier messages left out to fit]", "HEAD", "TAIL"}, []string{"OLD-1", "OLD-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := digest(msgs, tc.budget)
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("%q missing", s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(got, s) {
					t.Errorf("%q present", s)
				}
			}
			if len(got) > tc.budget+len("[2 earlier messages left out to fit]\n\n") {
				t.Errorf("digest of %d bytes over its budget of %d", len(got), tc.budget)
			}
		})
	}
}
