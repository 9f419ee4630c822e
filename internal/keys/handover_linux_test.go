package keys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// childVar makes the test binary act as a wisp that starts with keys.
const childVar = "KEYS_TEST_CHILD"

// childReport is what the child process says about itself.
type childReport struct {
	Err      string `json:"err"`
	Anthro   string `json:"anthropic"`
	Found    bool   `json:"found"`
	Dumpable int    `json:"dumpable"`
	Environ  string `json:"environ"`
	Argv     []string
}

func TestMain(m *testing.M) {
	switch os.Getenv(childVar) {
	case "1":
		os.Exit(child())
	case "2":
		if _, err := Start(os.Args); err != nil {
			os.Exit(1)
		}
		// Without capabilities wisp may count on the sandbox's user
		// namespace instead (see nonDumpable); the flag is what is
		// tested here.
		if clearDumpable() != nil {
			os.Exit(1)
		}
		d, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
		fmt.Printf("ready%d", d)
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child() int {
	var r childReport
	store, err := Start(os.Args)
	if err != nil {
		r.Err = err.Error()
	} else {
		r.Anthro, r.Found = store.Lookup("ANTHROPIC_API_KEY")
	}
	d, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	r.Dumpable = d
	env, _ := os.ReadFile("/proc/self/environ")
	r.Environ = string(env)
	r.Argv = os.Args
	_ = json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

// The keys leave the environment the kernel shows, arrive in the store,
// and the process is no longer dumpable.
func TestStartHandsKeysOver(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"anthropic key", []string{"ANTHROPIC_API_KEY=" + key, "WISP_API_KEY=" + key + "w"}, key},
		{"no key", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$", "extra arg")
			cmd.Env = append(append(os.Environ(), childVar+"=1"), tc.env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("child: %v\n%s", err, errb.String())
			}
			var r childReport
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("child said %q: %v", out.String(), err)
			}
			if r.Err != "" {
				t.Fatalf("Start: %s", r.Err)
			}
			if r.Anthro != tc.want || r.Found != (tc.want != "") {
				t.Errorf("Lookup = %q, %v; want %q", r.Anthro, r.Found, tc.want)
			}
			if strings.Contains(r.Environ, "sk-test") || strings.Contains(r.Environ, "_API_KEY=") {
				t.Errorf("the key is still in /proc/self/environ:\n%q", r.Environ)
			}
			if want := wantDumpable(); r.Dumpable != want {
				t.Errorf("PR_GET_DUMPABLE = %d, want %d", r.Dumpable, want)
			}
			if len(r.Argv) != 3 || r.Argv[2] != "extra arg" {
				t.Errorf("argv after the hand-over = %q", r.Argv)
			}
		})
	}
}

// Another process of the same user without CAP_SYS_PTRACE (what the
// sandbox leaves a command) cannot read a non-dumpable process's environ
// or memory.
func TestNonDumpableRefusesReaders(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil && os.Geteuid() == 0 {
		t.Skip("needs setpriv to drop capabilities as root")
	}
	// As root, both sides run without capabilities, as sandboxed
	// commands do: only then does the dumpable flag decide.
	var drop []string
	if os.Geteuid() == 0 {
		drop = []string{setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"}
	}
	argv := append(slices.Clip(drop), os.Args[0], "-test.run=^$")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), childVar+"=2")
	// The child holds still while it is read: its stdin stays open.
	cmd.Env = append(cmd.Env, "ANTHROPIC_API_KEY=sk-test-0123456789abcdef")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	ready := make([]byte, 6)
	if _, err := io.ReadFull(stdout, ready); err != nil {
		t.Fatalf("the child did not start: %v", err)
	}

	for _, f := range []string{"environ", "mem", "maps"} {
		path := fmt.Sprintf("/proc/%d/%s", cmd.Process.Pid, f)
		argv := append(slices.Clip(drop), "head", "-c", "64", path)
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err == nil {
			t.Errorf("%s was readable: %q", path, out)
		}
	}
}

// wantDumpable is what PR_GET_DUMPABLE must say after Start.
func wantDumpable() int {
	if helperNeedsUserNS() {
		return 1
	}
	return 0
}
