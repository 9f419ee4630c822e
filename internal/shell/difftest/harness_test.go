package difftest

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
)

func part(program, command string) shell.Part {
	return shell.Part{Program: program, Command: command, Level: shell.Safe}
}

// verdictOf builds the safe verdict a fake classifier would give.
func verdictOf(parts ...shell.Part) shell.Verdict {
	return shell.Verdict{Level: shell.Safe, Parts: parts}
}

// TestCatchesWrongVerdicts feeds the harness a classifier known to be
// wrong: each line is rated safe with parts that leave out what bash
// really does, and the harness must say so.
func TestCatchesWrongVerdicts(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name  string
		line  string
		parts []shell.Part
		want  Kind
	}{
		{"comment continued by backslash-newline", "ls # note \\\nid", []shell.Part{part("ls", "ls # note \\\nid")}, UnnamedProgram},
		{"program left out", "echo hi; rm -rf x", []shell.Part{part("echo", "echo hi")}, UnnamedProgram},
		{"eval left out", "eval 'echo hi'", []shell.Part{part("echo", "echo hi")}, UnnamedCommand},
		{"source left out", ". /dev/stdin <<< 'echo hi'", []shell.Part{part("echo", "echo hi")}, UnnamedCommand},
		{"function body", "f() { echo hi; }; f", []shell.Part{part("echo", "echo hi"), part("f", "f")}, FunctionBody},
		{"file written", "echo hi > out", []shell.Part{part("echo", "echo hi > out")}, Wrote},
		{"file written in TMPDIR", `echo hi > "$TMPDIR/x"`, []shell.Part{part("echo", `echo hi > "$TMPDIR/x"`)}, Wrote},
		{"hash entry", "hash -p /bin/true ls; ls", []shell.Part{part("hash", "hash -p /bin/true ls"), part("ls", "ls")}, NotTheProgram},
		{"BASH_CMDS entry", "BASH_CMDS[ls]=/bin/true; ls", []shell.Part{part("", "BASH_CMDS[ls]=/bin/true"), part("ls", "ls")}, NotTheProgram},
		{"by path", "/bin/true", []shell.Part{part("true", "true")}, ByPath},
		{"tracing off", "set +x; echo hi", []shell.Part{part("set", "set +x"), part("echo", "echo hi")}, Untraced},
		{"nested bash", "bash -c 'id'", []shell.Part{part("bash", "bash -c 'id'")}, UnnamedProgram},
		{"wrapper runs its command", "nice -n 1 timeout 5 id", []shell.Part{part("nice", "nice")}, UnnamedProgram},
		{"xargs runs its command", "echo x | xargs id", []shell.Part{part("echo", "echo x"), part("xargs", "xargs")}, UnnamedProgram},
		{"pager in the environment", "PAGER=id git log", []shell.Part{part("git", "PAGER=id git log")}, Environment},
		{"exported by set -a", "set -a; GIT_PAGER=id; git log", []shell.Part{part("set", "set -a"), part("", "GIT_PAGER=id"), part("git", "git log")}, Environment},
		{"secret handed to a program", "cat ~/.ssh/id_rsa", []shell.Part{part("cat", "cat ~/.ssh/id_rsa")}, ReadSecret},
		{"secret read by a builtin", `echo "$(< ~/.ssh/id_rsa)"`, []shell.Part{part("echo", `echo "$(< ~/.ssh/id_rsa)"`)}, ReadSecret},
		{"arithmetic subscript", `x='a[$(id)]'; echo $((x))`, []shell.Part{part("", "x='a[$(id)]'"), part("echo", "echo $((x))")}, UnnamedProgram},
		{"extglob body", "shopt -s extglob\nls @(x|$(id))", []shell.Part{part("shopt", "shopt -s extglob"), part("ls", "ls @(x|$(id))")}, UnnamedProgram},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bad := func(string, shell.Options) shell.Verdict { return verdictOf(tc.parts...) }
			r, ran, err := h.Classify(t.Context(), bad, tc.line)
			if err != nil {
				t.Fatal(err)
			}
			if !ran {
				t.Fatal("a line rated safe was not run")
			}
			if !slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Kind == tc.want }) {
				t.Errorf("want a finding %q, got:\n%s", tc.want, r)
			}
		})
	}
}

// TestHarmlessLinesPass checks that a verdict naming exactly what a
// harmless line runs gives no finding: the comparison must not cry wolf.
func TestHarmlessLinesPass(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		line  string
		parts []shell.Part
	}{
		{"echo hi | grep h", []shell.Part{part("echo", "echo hi"), part("grep", "grep h")}},
		{"ls -la; cat README.md", []shell.Part{part("ls", "ls -la"), part("cat", "cat README.md")}},
		{"env LC_ALL=C ls", []shell.Part{part("ls", "env LC_ALL=C ls")}},
		{"LC_ALL=C TZ=UTC sort x", []shell.Part{part("sort", "LC_ALL=C TZ=UTC sort x")}},
		{"[ -f x ] && echo y || echo n", []shell.Part{part("[", "[ -f x ]"), part("echo", "echo y"), part("echo", "echo n")}},
		{"[[ a == b ]] || true", []shell.Part{part("[[", "[[ a == b ]]"), part("true", "true")}},
		{"x=1; echo $x", []shell.Part{part("", "x=1"), part("echo", "echo $x")}},
		{"for i in 1 2; do echo $i; done", []shell.Part{part("echo", "echo $i")}},
		{"case a in a) true;; esac", []shell.Part{part("true", "true")}},
		{"echo $(ls) `pwd`", []shell.Part{part("echo", "echo $(ls) `pwd`"), part("ls", "ls"), part("pwd", "pwd")}},
		{"cat <(ls)", []shell.Part{part("cat", "cat <(ls)"), part("ls", "ls")}},
		{"time ls", []shell.Part{part("ls", "ls")}},
		{"! ls", []shell.Part{part("ls", "! ls")}},
		{"cd . && ls", []shell.Part{part("cd", "cd ."), part("ls", "ls")}},
		{"echo hi > /dev/null 2>&1", []shell.Part{part("echo", "echo hi > /dev/null 2>&1")}},
		{"printf '%s\\n' 'a\nb' | sort | uniq -c", []shell.Part{part("printf", "printf"), part("sort", "sort"), part("uniq", "uniq -c")}},
		{"cat <<EOF\nplain\nEOF", []shell.Part{part("cat", "cat <<EOF")}},
		{"ls\nwc -l README.md", []shell.Part{part("ls", "ls"), part("wc", "wc -l README.md")}},
		{"timeout 5 nice -n 1 ls", []shell.Part{part("ls", "timeout 5 nice -n 1 ls")}},
		{"ls &", []shell.Part{part("ls", "ls")}},
		{"command -v git", []shell.Part{part("command", "command -v git")}},
		{"echo $HOME $PWD", []shell.Part{part("echo", "echo $HOME $PWD")}},
		{"cat ~/.ssh/id_rsa.pub 2>/dev/null", []shell.Part{part("cat", "cat ~/.ssh/id_rsa.pub")}},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			r, err := h.Check(t.Context(), tc.line, verdictOf(tc.parts...))
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed() {
				t.Errorf("a harmless line failed:\n%s", r)
			}
		})
	}
}

func TestParseTrace(t *testing.T) {
	out := "+\x1f\x1f echo hi\n" +
		"++\x1f\x1f ls -la\n" +
		"+\x1f\x1f x=1\n" +
		"+\x1ff\x1f '[' -f x ']'\n" +
		"+\x1f\x1f echo 'a\nb'\n" +
		"+\x1f\x1f $'\\x69d' x\n"
	got := ParseTrace(out)
	want := []TraceCmd{
		{Depth: 1, Text: "echo hi", Name: "echo"},
		{Depth: 2, Text: "ls -la", Name: "ls"},
		{Depth: 1, Text: "x=1", Name: "x=1", Assign: true},
		{Depth: 1, Function: "f", Text: "'[' -f x ']'", Name: "["},
		{Depth: 1, Text: "echo 'a\nb'", Name: "echo"},
		{Depth: 1, Text: "$'\\x69d' x", Name: "id"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseTrace:\n got %#v\nwant %#v", got, want)
	}
	if got := ParseTrace("forged\n+\x1f\x1f ls\n"); len(got) != 2 || got[0].Depth != 0 {
		t.Errorf("text before the first record: %#v", got)
	}
}

func TestFirstWord(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la":            "ls",
		"'[' -f x ']'":      "[",
		`$'\151\144' x`:     "id",
		`$'a\'b'`:           "a'b",
		`'a'\''b' c`:        "a'b",
		`\ls`:               "ls",
		"x=1":               "x=1",
		"/usr/bin/id":       "/usr/bin/id",
		`'/tmp/a b/x' arg`:  "/tmp/a b/x",
		`$'\x2fbin\x2fls'`:  "/bin/ls",
		"":                  "",
		`'unterminated`:     "unterminated",
		"echo\targ":         "echo",
		`$'tab\there' more`: "tab\there",
	} {
		if got := FirstWord(in); got != want {
			t.Errorf("FirstWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseExportP(t *testing.T) {
	out := "export A='1'\nexport B='x\nexport C=2'\nexport D\nexport E='it'\"'\"'s'\nexport F=plain\n"
	want := map[string]string{"A": "1", "B": "x\nexport C=2", "D": "", "E": "it's", "F": "plain"}
	if got := ParseExportP(out); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseExportP = %#v, want %#v", got, want)
	}
}

func TestNamedBy(t *testing.T) {
	v := verdictOf(
		part("ls", "env FOO=1 nice ls -la rm"),
		part("/usr/bin/git", "/usr/bin/git status"),
		part("", "x=1"),
		part("[", "'[' -f x ']'"),
	)
	got := NamedBy(v)
	for _, n := range []string{"ls", "env", "nice", "/usr/bin/git", "git", "["} {
		if !got[n] {
			t.Errorf("NamedBy misses %q: %v", n, got)
		}
	}
	for _, n := range []string{"rm", "FOO=1", "x=1", "-la"} {
		if got[n] {
			t.Errorf("NamedBy names %q, which no part runs: %v", n, got)
		}
	}
}

func TestCompareEnvironment(t *testing.T) {
	base := Baseline{Env: map[string]string{"PATH": "/shims", "HOME": "/h", "SHELLOPTS": "xtrace"}}
	run := Run{Execs: []Exec{
		{Name: "ls", Argv: []string{"/shims/ls"}, Env: map[string]string{"PATH": "/shims", "HOME": "/h", "LC_ALL": "C", "PWD": "/w", "SHELLOPTS": "braceexpand:xtrace"}},
	}}
	if f := Compare("ls", verdictOf(part("ls", "ls")), run, base); len(f) != 0 {
		t.Errorf("allowed environment reported: %v", f)
	}
	for name, env := range map[string]map[string]string{
		"pager":        {"PAGER": "id"},
		"home changed": {"HOME": "."},
		"ld_preload":   {"LD_PRELOAD": "x.so"},
		"tracing off":  {"SHELLOPTS": "braceexpand"},
	} {
		run := Run{Execs: []Exec{{Name: "ls", Argv: []string{"/shims/ls"}, Env: env}}}
		if f := Compare("ls", verdictOf(part("ls", "ls")), run, base); len(f) == 0 {
			t.Errorf("%s: environment %v not reported", name, env)
		}
	}
}

func TestDecodeFuzzFile(t *testing.T) {
	got, err := decodeFuzzFile("go test fuzz v1\nstring(\"ls # \\\\\\nid\")\nint(3)\n[]byte(\"echo\")\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ls # \\\nid", "echo"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := decodeFuzzFile("not a corpus file\n"); err == nil {
		t.Error("a file without the header decoded")
	}
}

func TestFuzzCorpusMissingFolder(t *testing.T) {
	got, err := FuzzCorpus(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(got) != 0 {
		t.Errorf("missing folder: %v, %v", got, err)
	}
}

func TestReadCorpus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lines.txt")
	text := "# comment\n\n## family one\nls -la\nq:\"ls # x \\\\\\nid\"\n#\n## family two\necho hi\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCorpus(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{
		{Text: "ls -la", Source: "lines.txt:4", Family: "family one"},
		{Text: "ls # x \\\nid", Source: "lines.txt:5", Family: "family one"},
		{Text: "echo hi", Source: "lines.txt:8", Family: "family two"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadCorpus:\n got %#v\nwant %#v", got, want)
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("q:\"unterminated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCorpus(bad); err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Errorf("bad quoted entry: %v", err)
	}
}

func TestTestLiterals(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nvar lines = []string{\"ls -la\", `echo \"hi\"`, \"\", \"  \"}\n"
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := TestLiterals(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, l := range got {
		texts = append(texts, l.Text)
	}
	if want := []string{"ls -la", `echo "hi"`}; !reflect.DeepEqual(texts, want) {
		t.Errorf("TestLiterals = %q, want %q", texts, want)
	}
}

// The cost of one checked run against the baseline of starting the same
// line in a plain bash (go test -bench . -run '^$').
const benchLine = "echo hi | grep h"

func BenchmarkCheck(b *testing.B) {
	h := newHarness(b)
	v := verdictOf(part("echo", "echo hi"), part("grep", "grep h"))
	for b.Loop() {
		r, err := h.Check(b.Context(), benchLine, v)
		if err != nil || r.Failed() {
			b.Fatal(err, r)
		}
	}
}

func BenchmarkPlainBash(b *testing.B) {
	bash, _ := sandbox.ShellPath()
	for b.Loop() {
		if err := exec.Command(bash, "--noprofile", "--norc", "-c", benchLine).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMappedUIDs(t *testing.T) {
	for _, tc := range []struct {
		uidMap         string
		wantLo, wantHi int
	}{
		{"0 0 4294967295", uidFloor, uidFloor + uidRange},
		{"0 100000 65536", 32768, 65534},
		{"0 1000 1\n1 100000 65536", 32769, 65535},
	} {
		lo, hi := mappedUIDs(tc.uidMap, uidFloor, uidFloor+uidRange)
		if lo != tc.wantLo || hi != tc.wantHi {
			t.Errorf("mappedUIDs(%q) = [%d, %d), want [%d, %d)", tc.uidMap, lo, hi, tc.wantLo, tc.wantHi)
		}
	}
}

func TestHidesTrace(t *testing.T) {
	for text, want := range map[string]bool{
		"set +x":                     true,
		"set -e +x":                  true,
		"set +o xtrace":              true,
		"shopt -u -o xtrace":         true,
		"BASH_XTRACEFD=2":            true,
		"PS4=":                       true,
		"unset PS4":                  true,
		"exec {BASH_XTRACEFD}>&-":    true,
		"declare -g SHELLOPTS=":      true,
		"set -e":                     false,
		"echo BASH_XTRACEFD PS4":     false,
		"printenv PS4":               false,
		"set -- +x":                  true, // conservative: set's own words
		"CDPATH=/x":                  false,
		"read -r MYPS4":              false,
		"printf -v PS4X %s x":        false,
		"local BASH_XTRACEFDX=1":     false,
		"typeset -x PS4='$(id)'":     true,
		"mapfile SHELLOPTS < /x":     true,
		"getopts ab BASH_XTRACEFD":   true,
		"echo set +x":                false,
		"shopt -s extglob":           false,
		"set -o pipefail":            false,
		"readonly PS4":               true,
		"export PS4":                 true,
		"unset -v BASH_XTRACEFD":     true,
		"declare -p SHELLOPTS":       true,
		"a[PS4]=1":                   true,
		"x=PS4":                      true,
		"echo '$(unset PS4)'":        false,
		"set -x":                     false,
		"set -vx":                    false,
		"set +v":                     false,
		"set +ex":                    true,
		"shopt -u -o xtrace errexit": true,
	} {
		c := ParseTrace("+\x1f\x1f " + text + "\n")[0]
		if got := hidesTrace(c); got != want {
			t.Errorf("hidesTrace(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestRunsStartClean checks that what one run writes is gone before the
// next run in the same slot: each line must meet empty folders.
func TestRunsStartClean(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Helper: self, Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	v := verdictOf(part("echo", "echo"))
	r, err := h.Check(t.Context(), `echo x > f; echo y > "$TMPDIR/g"`, v)
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, c := range r.Run.Changes {
		if strings.HasPrefix(c, "created ") {
			created++
		}
	}
	if created != 2 {
		t.Fatalf("want two files created, got %q", r.Run.Changes)
	}
	r, err = h.Check(t.Context(), `[ -e f ] || [ -e "$TMPDIR/g" ] && echo left over >&2`, v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Run.Stderr, "left over") {
		t.Errorf("the second run saw the first run's files:\n%s", r)
	}
}

func TestSecretArg(t *testing.T) {
	home := "/h"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"/h/.ssh/id_rsa"}, "/h/.ssh/id_rsa"},
		{[]string{"-n", ".ssh/id_rsa"}, ".ssh/id_rsa"},
		{[]string{"--file=/h/.aws/credentials"}, "--file=/h/.aws/credentials"},
		{[]string{"/h/x/../.netrc"}, "/h/x/../.netrc"},
		{[]string{"/h/.ssh/id_rsa.pub"}, ""},
		{[]string{"/h/.ssh"}, ""},
		{[]string{"id_rsa", "README.md"}, ""},
	} {
		if got := secretArg(tc.args, home); got != tc.want {
			t.Errorf("secretArg(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
