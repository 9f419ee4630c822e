// Package fakescript gives testscript end-to-end tests of wisp binaries a
// private home and commands that drive the fake provider: `fake` starts it
// with a script and points wisp at it, `fakereq` reads what wisp sent,
// `waitfile` waits for a file, `maxsize` bounds one, `deltas` joins the
// streamed text of a --mode json run, `gocache` shares the tests' Go build
// cache. It is for tests only.
package fakescript

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// slotKey is the key of the slot in a script's values.
type slotKey struct{}

// slot holds the fake server a script started last.
type slot struct{ srv *fake.Server }

// Setup gives each script its own HOME and WISP_HOME. HOME lies beside the
// workspace, not in it: the sandbox keeps any folder that holds wisp's
// home read-only.
func Setup(env *testscript.Env) error {
	home, err := os.MkdirTemp("", "wisp-home-")
	if err != nil {
		return err
	}
	env.Defer(func() { os.RemoveAll(home) })
	env.Setenv("HOME", home)
	env.Setenv("WISP_HOME", filepath.Join(home, ".wisp"))
	env.Values[slotKey{}] = &slot{}
	return nil
}

// Cmds are the script commands; Setup must run first.
func Cmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"fake":     cmdFake,
		"fakereq":  cmdFakeReq,
		"waitfile": cmdWaitFile,
		"maxsize":  cmdMaxSize,
		"deltas":   cmdDeltas,
		"gocache":  cmdGoCache,
	}
}

// cmdFake starts the fake provider with a script and points wisp at it:
// fake anthropic|openai SCRIPT.
func cmdFake(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: fake anthropic|openai SCRIPT")
	}
	script, err := fake.LoadScript(ts.MkAbs(args[1]))
	ts.Check(err)
	srv, err := fake.Start(script)
	ts.Check(err)
	ts.Defer(srv.Close)
	ts.Value(slotKey{}).(*slot).srv = srv
	switch args[0] {
	case "anthropic":
		ts.Setenv("WISP_PROVIDER", "anthropic")
		ts.Setenv("ANTHROPIC_API_KEY", "test-key")
		ts.Setenv("ANTHROPIC_BASE_URL", srv.URL())
	case "openai":
		ts.Setenv("WISP_PROVIDER", "openai")
		ts.Setenv("OPENAI_API_KEY", "test-key")
		ts.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	default:
		ts.Fatalf("unknown wire format %q", args[0])
	}
}

// cmdFakeReq writes the body of the fake's Nth request (from 0) to a file,
// or with `count` checks how many requests arrived: fakereq N FILE | fakereq count N.
func cmdFakeReq(ts *testscript.TestScript, neg bool, args []string) {
	srv := ts.Value(slotKey{}).(*slot).srv
	if srv == nil || len(args) != 2 {
		ts.Fatalf("usage: fakereq N FILE | fakereq count N (after fake)")
	}
	reqs := srv.Requests()
	if args[0] == "count" {
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		if (len(reqs) == want) == neg {
			ts.Fatalf("fake got %d requests, want %d", len(reqs), want)
		}
		return
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	if n >= len(reqs) {
		ts.Fatalf("fake got %d requests, no request %d", len(reqs), n)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), reqs[n].Body, 0o600))
}

// cmdWaitFile waits up to 20 s for a file to appear: waitfile PATH.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear", args[0])
}

// cmdMaxSize fails when a file is larger than N bytes: maxsize FILE N.
func cmdMaxSize(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: maxsize FILE N")
	}
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Logf("%s is %d bytes", args[0], fi.Size())
	if (fi.Size() > int64(n)) != neg {
		ts.Fatalf("%s is %d bytes, limit %d", args[0], fi.Size(), n)
	}
}

// cmdDeltas reads the JSON Lines of a --mode json run and checks what a
// client that joins the message_delta texts after the last message_start
// gets for the final assistant message: exactly TEXT, which must also be
// that message's text. deltas FILE TEXT.
func cmdDeltas(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: deltas FILE TEXT")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	var joined, final, message string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type    string `json:"type"`
			Delta   string `json:"delta"`
			Message *struct {
				Role    string `json:"role"`
				Content []struct {
					Type, Text string
				} `json:"content"`
			} `json:"message"`
		}
		ts.Check(json.Unmarshal(sc.Bytes(), &e))
		switch {
		case e.Type == "message_start":
			joined = ""
		case e.Type == "message_delta":
			joined += e.Delta
		case e.Type == "message_end" && e.Message != nil && e.Message.Role == "assistant":
			final, message = joined, ""
			for _, b := range e.Message.Content {
				if b.Type == "text" {
					message += b.Text
				}
			}
		}
	}
	ts.Check(sc.Err())
	ok := final == args[1] && message == args[1]
	if ok == neg {
		ts.Fatalf("joined deltas %q, final message %q, want %q", final, message, args[1])
	}
}

// cmdGoCache points GOCACHE at the build cache of the go command that runs
// the tests, so that a script's go builds (in its fresh HOME, which has no
// cache) need not compile the standard library first: gocache.
func cmdGoCache(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 || neg {
		ts.Fatalf("usage: gocache")
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	ts.Check(err)
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		ts.Fatalf("go env GOCACHE is %q, not a folder", dir)
	}
	ts.Setenv("GOCACHE", dir)
}
