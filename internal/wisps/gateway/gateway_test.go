package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

func TestScriptCommandLine(t *testing.T) {
	cases := []struct{ lang, args, want, err string }{
		{"python", `{"script":"print('a')"}`, `python3 -c 'print('\''a'\'')'`, ""},
		{"node", `{"script":"console.log(1)"}`, `node -e 'console.log(1)'`, ""},
		{"sh", `{"script":"echo $HOME"}`, `sh -c 'echo $HOME'`, ""},
		{"bash", `{"script":"ls -la"}`, `ls -la`, ""},
		{"bash", `{"script":"  "}`, "", "missing required parameter script"},
		{"bash", `{"script":"ls","x":1}`, "", `unknown parameter "x"`},
		{"bash", `[1]`, "", "malformed arguments"},
	}
	for _, c := range cases {
		t.Run(c.lang+" "+c.args, func(t *testing.T) {
			s := &ScriptTool{Language: c.lang}
			got, err := s.CommandLine(json.RawMessage(c.args))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("line %q (%v), want %q", got, err, c.want)
			}
		})
	}
}

func plainShell(line, dir string) *exec.Cmd {
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = dir
	return cmd
}

func TestScriptRun(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, script string
		shell        bool
		isErr        bool
		want         string
	}{
		{"stdout is the result", `echo '{"n":1}'; echo note >&2`, true, false, "{\"n\":1}\n"},
		{"runs in the shared volume", `pwd`, true, false, dir + "\n"},
		{"non-zero exit fails", `echo bad >&2; exit 3`, true, true, "error: the script exited with code 3\nstderr:\nbad\n"},
		{"no shell runs nothing", `echo hi`, false, true, "error: no sandboxed shell was provided; the script was not run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := &tool.Env{TempDir: t.TempDir()}
			if c.shell {
				env.Shell = plainShell
			}
			args, _ := json.Marshal(map[string]string{"script": c.script})
			res, err := (&ScriptTool{Language: "bash", Dir: dir}).Run(context.Background(), env, args)
			if err != nil || res.IsError != c.isErr || res.Content != c.want {
				t.Fatalf("result %+v %v, want %q", res, err, c.want)
			}
		})
	}
}

func TestReadable(t *testing.T) {
	page := `<html><head><title>T</title><style>x{}</style></head><body><h1>Title</h1><script>var a</script><p>One  <b>two</b></p><ul><li>a</li><li>b</li></ul></body></html>`
	if got := Readable(page); got != "Title\nOne two\na\nb" {
		t.Fatalf("Readable = %q", got)
	}
}

func TestBrowse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body><p>Hello</p></body></html>")
		case "/big":
			fmt.Fprint(w, strings.Repeat("x", BrowseTextBytes+10))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	b := &Browse{Client: srv.Client()}
	cases := []struct {
		name, args string
		isErr      bool
		want       string
	}{
		{"html to text", `{"url":"` + srv.URL + `/page"}`, false, "Hello"},
		{"not found", `{"url":"` + srv.URL + `/nope"}`, true, "404"},
		{"bounded", `{"url":"` + srv.URL + `/big"}`, false, "[text truncated at 51200 bytes]"},
		{"bad scheme", `{"url":"file:///etc/passwd"}`, true, "missing required parameter url"},
		{"unknown field", `{"url":"http://x","m":"POST"}`, true, "it takes url only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := b.Run(context.Background(), &tool.Env{}, json.RawMessage(c.args))
			if err != nil || res.IsError != c.isErr || !strings.Contains(res.Content, c.want) {
				t.Fatalf("result %v %q", err, res.Content[:min(len(res.Content), 200)])
			}
		})
	}
	inv, err := b.Invocation(json.RawMessage(`{"url":"https://example.com/a"}`))
	if err != nil || inv.Subject != "web_browse GET https://example.com/a" {
		t.Fatalf("invocation %+v %v", inv, err)
	}
	var _ tool.Remote = b
}
