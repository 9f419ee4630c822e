package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/testbin"
)

// The conformance tests run the real wisp binary with --mode rpc against
// the fake provider, served from the test process so that the requests
// wisp sends can be read back. (A built binary, not this test binary
// re-executed: wisp starts copies of itself for the sandbox.)

// wisp is the package's build of cmd/wisp.
var wisp testbin.Wisp

// wispBinary builds cmd/wisp once for the package's tests.
func wispBinary(t *testing.T) string { return wisp.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	wisp.Remove()
	os.Exit(code)
}

// world is one test's home, workspace and fake provider, speaking one
// wire format.
type world struct {
	bin, home, work string // bin is built on the first start
	srv             *fake.Server
	env             []string
}

func newWorld(t *testing.T, format string, turns ...fake.Turn) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{home: filepath.Join(base, "home"), work: filepath.Join(base, "work")}
	for _, d := range []string{w.home, w.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fake.Start(fake.Script{Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	w.srv = srv
	w.env = []string{"HOME=" + w.home, "WISP_HOME=" + filepath.Join(w.home, ".wisp"), "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	switch format {
	case "openai":
		w.env = append(w.env, "WISP_PROVIDER=openai", "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+srv.URL()+"/v1")
	default:
		w.env = append(w.env, "WISP_PROVIDER=anthropic", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL())
	}
	return w
}

// frame is one line of wisp's output.
type frame struct {
	raw    string
	fields map[string]json.RawMessage
}

func (f frame) str(key string) string {
	var s string
	_ = json.Unmarshal(f.fields[key], &s)
	return s
}

func (f frame) typ() string { return f.str("type") }

// client is a running wisp --mode rpc and everything it wrote.
type client struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan frame
	log    []frame // every frame read so far, in order
	stderr bytes.Buffer
	nextID int
	exited chan error
	gone   bool // the exit was seen
	// cursor is how far until has looked in log: the events read while
	// waiting for a response are still found by until.
	cursor int
}

func (w *world) start(t *testing.T, args ...string) *client {
	t.Helper()
	c := &client{t: t, lines: make(chan frame, 1<<14), exited: make(chan error, 1)}
	if w.bin == "" {
		w.bin = wispBinary(t)
	}
	c.cmd = exec.Command(w.bin, append([]string{"--mode", "rpc"}, args...)...)
	c.cmd.Dir = w.work
	c.cmd.Env = w.env
	c.cmd.Stderr = &c.stderr
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.read(out, c.cmd.Wait)
	t.Cleanup(func() {
		_ = c.in.Close()
		if c.gone {
			return
		}
		select {
		case <-c.exited:
		case <-time.After(15 * time.Second):
			_ = c.cmd.Process.Kill()
		}
	})
	return c
}

// read collects the frames of out; wait says how the server ended.
func (c *client) read(out io.Reader, wait func() error) {
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			f := frame{raw: sc.Text()}
			if err := json.Unmarshal(sc.Bytes(), &f.fields); err != nil {
				f.fields = map[string]json.RawMessage{"type": json.RawMessage(`"!not json"`)}
			}
			c.lines <- f
		}
		close(c.lines)
		c.exited <- wait()
	}()
}

const waitLimit = 15 * time.Second

// next is the next frame; it fails the test when none comes in time.
func (c *client) next() frame {
	c.t.Helper()
	select {
	case f, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("wisp's output ended; stderr:\n%s", c.stderr.String())
		}
		if f.typ() == "!not json" {
			c.t.Fatalf("a frame is not JSON: %q", f.raw)
		}
		c.log = append(c.log, f)
		return f
	case <-time.After(waitLimit):
		c.t.Fatalf("no frame within %s; the last frames:\n%s\nstderr:\n%s", waitLimit, c.tail(8), c.stderr.String())
	}
	return frame{}
}

// tail is the last n frames read, for failure messages.
func (c *client) tail(n int) string {
	var b strings.Builder
	for _, f := range c.log[max(0, len(c.log)-n):] {
		b.WriteString(f.raw + "\n")
	}
	return b.String()
}

func (c *client) sendRaw(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, s); err != nil {
		c.t.Fatalf("write to wisp: %v", err)
	}
}

// call sends a command with a fresh id and returns its response; the
// events before it stay in the log.
func (c *client) call(typ string, fields map[string]any) frame {
	c.t.Helper()
	c.nextID++
	id := fmt.Sprintf("r%d", c.nextID)
	m := map[string]any{"id": id, "type": typ}
	for k, v := range fields {
		m[k] = v
	}
	data, _ := json.Marshal(m)
	c.sendRaw(string(data) + "\n")
	for {
		f := c.next()
		if f.typ() == "response" {
			if f.str("id") != id {
				c.t.Fatalf("response to %s carries id %s, want %s: %s", typ, f.fields["id"], id, f.raw)
			}
			if f.str("command") != typ {
				c.t.Fatalf("response to %s names command %q", typ, f.str("command"))
			}
			return f
		}
	}
}

// ok calls and wants success; it returns the response's data.
func (c *client) ok(typ string, fields map[string]any) map[string]json.RawMessage {
	c.t.Helper()
	f := c.call(typ, fields)
	if string(f.fields["success"]) != "true" {
		c.t.Fatalf("%s failed: %s", typ, f.raw)
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(f.fields["data"], &data); err != nil {
		c.t.Fatalf("%s: data is not an object: %s", typ, f.raw)
	}
	return data
}

// fails calls and wants the error code.
func (c *client) fails(typ string, fields map[string]any, code string) {
	c.t.Helper()
	f := c.call(typ, fields)
	var e Error
	_ = json.Unmarshal(f.fields["error"], &e)
	if string(f.fields["success"]) != "false" || e.Code != code || e.Message == "" {
		c.t.Fatalf("%s: want error %s, got %s", typ, code, f.raw)
	}
	if _, has := f.fields["data"]; has {
		c.t.Fatalf("%s: an error response carries data: %s", typ, f.raw)
	}
}

// until reads frames until one satisfies pred, and returns it.
func (c *client) until(what string, pred func(frame) bool) frame {
	c.t.Helper()
	for c.cursor < len(c.log) {
		f := c.log[c.cursor]
		c.cursor++
		if pred(f) {
			return f
		}
	}
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		f := c.next()
		c.cursor = len(c.log)
		if pred(f) {
			return f
		}
	}
	c.t.Fatalf("no %s within %s", what, waitLimit)
	return frame{}
}

// skip makes until look only at frames read from now on.
func (c *client) skip() { c.cursor = len(c.log) }

func (c *client) event(typ string) frame {
	c.t.Helper()
	return c.until(typ, func(f frame) bool { return f.typ() == typ })
}

// shutdown ends wisp with the command and wants exit code 0.
func (c *client) shutdown() {
	c.t.Helper()
	c.ok("shutdown", nil)
	c.wantExit(0)
}

func (c *client) wantExit(code int) {
	c.t.Helper()
	for {
		f, ok := <-c.lines
		if !ok {
			break
		}
		c.log = append(c.log, f)
	}
	select {
	case err := <-c.exited:
		c.gone = true
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			c.t.Fatal(err)
		}
		if got != code {
			c.t.Fatalf("exit code %d, want %d; stderr:\n%s", got, code, c.stderr.String())
		}
	case <-time.After(waitLimit):
		c.t.Fatalf("wisp did not exit; stderr:\n%s", c.stderr.String())
	}
}

// events are the log's events of one type.
func (c *client) events(typ string) []frame {
	var out []frame
	for _, f := range c.log {
		if f.typ() == typ {
			out = append(out, f)
		}
	}
	return out
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func hasText(s, sub string) bool { return strings.Contains(s, sub) }
