package shell

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Lines an attack on the built binary found rated safe, each with what it
// did: none may run without a question.
func TestRedTeamFindings(t *testing.T) {
	cases := []struct{ name, line string }{
		{"uniq glob writes its second operand", "uniq [0M]*"},
		{"uniq star", "uniq *"},
		{"uniq brace", "uniq {a,b}"},
		{"uniq question glob", "uniq ?"},
		{"uniq dot glob", "uniq .[e]nvrc"},
		{"git log in a nested bare repository", "cd evil && git log -p"},
		{"git status in a nested repository", "cd w; git status"},
		{"git show after cd", "cd sub && git show HEAD"},
		{"physical cd through a link into a bare repository", "cd -P i/.. && git log -p"},
		{"physical cd, options joined", "cd -LP i/.. && git status"},
		{"physical cd to a run-time place", `cd -P "$d" && git log`},
		{"ref format with a signature atom", "git branch --format='%(signature)'"},
		{"for-each-ref signature atom", "git for-each-ref --format='%(signature:grade)'"},
		{"git log %G runs gpg.program", "git log --format=%G?"},
		{"git show %GS", "git show -s --format=%GS HEAD"},
		{"git shortlog %GK", "git shortlog --format=%GK"},
		{"the repository's config holds remote URLs with tokens", "cat .git/config"},
		{"config by absolute path", "grep url /w/.git/config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ClassifyWith(c.line, Options{Workdir: "/w", Home: "/home/u"})
			if v.Level == Safe {
				t.Fatalf("%q is safe; want at least moderate", c.line)
			}
		})
	}
	for _, line := range []string{"cp x .vscode/settings.json", "echo x | tee .github/workflows/x.yml",
		"touch .husky/pre-commit", "cp x .pre-commit-config.yaml", "cp x .idea/workspace.xml", "echo a > .envrc"} {
		if v := ClassifyWith(line, Options{Workdir: "/w", Home: "/home/u"}); v.Level != Dangerous {
			t.Errorf("%q is %s; a write to a place that runs outside the sandbox is dangerous", line, v.Level)
		}
	}
	for _, line := range []string{"git log -p", "git status", "uniq -c names.txt", "sort x | uniq"} {
		if v := ClassifyWith(line, Options{Workdir: "/w", Home: "/home/u"}); v.Level != Safe {
			t.Errorf("%q is %s (%v); want safe", line, v.Level, v.Reasons)
		}
	}
}

// Lines a second attack on the built binary found rated safe, each with
// what bash did, and the least verdict each must now get.
func TestRedTeamFindingsRoundTwo(t *testing.T) {
	cases := []struct {
		name, line string
		want       Level
	}{
		{"jq prints the environment", "jq -n env", Moderate},
		{"jq reads one variable", "jq -n '$ENV.GITHUB_TOKEN'", Moderate},
		{"jq env inside a string", `jq -n '"\(env)"'`, Moderate},
		{"jq program from a file", "jq -f prog.jq data.json", Moderate},
		{"jq module metadata", `jq -n '"x" | modulemeta'`, Moderate},
		{"remote URLs carry tokens", "git remote -v", Moderate},
		{"cwd link then up", "cat /proc/self/cwd/../x", Moderate},
		{"cwd link then up to a home", "cat /proc/self/cwd/../../home/u/.bashrc", Moderate},
		{"fd link then up", "cat /dev/fd/../cwd/../x", Moderate},
		{"cd through the cwd link", "cd /proc/self/cwd/..; cat x", Moderate},
		{"recursive grep of /proc reads environ", "grep -r TOKEN /proc/self", Moderate},
		{"recursive grep of all of /proc", "grep -ra KEY /proc", Moderate},
		{"recursive grep of /etc reads host keys as root", "grep -r PRIVATE /etc", Moderate},
		{"grep -d recurse", "grep -d recurse KEY /etc/ssh", Moderate},
		{"rg of /proc", "rg KEY /proc/1", Moderate},
		{"diff -r of /etc", "diff -r /etc x", Moderate},
		{"failed cd leaves the line where it was", "cd a; cat ../.bash_history", Moderate},
		{"cd that fails under ||", "cd x || cat ../y", Moderate},
		{"brace around single quotes", "cat .{'e',}nv", Moderate},
		{"brace around double quotes", `cat .{"e",}nv`, Moderate},
		{"bracket around single quotes", "cat .[e'x']nv", Dangerous},
		{"bracket around double quotes", `cat .[e"x"]nv`, Dangerous},
		{"editor backup of .env", "cat .env~", Dangerous},
		{"dashed .env copy", "cat .env-prod", Dangerous},
		{"named env file", "head prod.env", Dangerous},
		{"direnv file", "cat .envrc", Dangerous},
		{"vault token in the workspace", "cat .vault-token", Dangerous},
		{"glob for a named env file", "cat *env", Dangerous},
		{"git -U takes no separate value: --output writes", "git diff -U --output=/tmp/x", Moderate},
		{"git log -U then an external diff", "git log -U --ext-diff -p", Moderate},
		{"git show --unified then --output", "git show --unified --output=x", Moderate},
		{"bare --format: git writes before it fails", "git log --format --output=x", Moderate},
		{"--max-parents is attached only", "git log --max-parents --output=x", Moderate},
		{"column -d is a flag: the home file is an operand", "column -d ~/.bashrc", Moderate},
		{"od --strings takes no separate value", "od --strings /home/u/.bashrc", Moderate},
		{"git --help runs the man viewer of git's configuration", "git --help log", Moderate},
		{"escape sequences straight to the terminal", `printf '\e]52;c;aGk=\a' > /dev/tty`, Moderate},
		{"errors straight to the terminal", "ls 2>/dev/tty", Moderate},
		{"reads what the person types", "head -c 20 < /dev/tty", Moderate},
		{"git diff of a path outside the repository is --no-index", "git diff /home/u/.bashrc /dev/null", Moderate},
		{"git diff of a sibling project", "git diff ../other/main.go main.go", Moderate},
		{"git diff of a system file", "git diff -- /opt/app/config.yml f", Moderate},
		{"the shadow file's backup", "cat /etc/shadow-", Dangerous},
		{"a glob over the backups", "cat /etc/*-", Dangerous},
		{"IPsec keys", "cat /etc/ipsec.secrets", Dangerous},
		{"PPP passwords", "cat /etc/ppp/chap-secrets", Dangerous},
		{"a Ceph keyring", "cat /etc/ceph/ceph.client.admin.keyring", Dangerous},
		{"saved wifi passwords", "cat /etc/NetworkManager/system-connections/home.nmconnection", Dangerous},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ClassifyWith(c.line, testOpts)
			if v.Level < c.want {
				t.Fatalf("%q is %s, want at least %s\n%s", c.line, v.Level, c.want, v.Text())
			}
		})
	}
	for _, line := range []string{"git remote", "cd src && grep -rn x .", "cd src && cat main.go",
		"cat /etc/os-release", "jq .name package.json", "git diff -U0", "git log -U3 -p", "git show -s --format=%s HEAD", "git diff HEAD~1 -- internal/", "git log origin/main..HEAD", "cat .env.example", "cat x{1..3}", "cat 'src'/{a,b}.go"} {
		if v := ClassifyWith(line, testOpts); v.Level != Safe {
			t.Errorf("%q is %s (%v); want safe", line, v.Level, v.Reasons)
		}
	}
}

// A line of many operands is classified in time proportional to its
// length, not its square: the gate must not hang on it.
func TestManyOperandsStayFast(t *testing.T) {
	var b strings.Builder
	b.WriteString("cat")
	for i := range 40000 {
		fmt.Fprintf(&b, " f%d", i)
	}
	start := time.Now()
	v := ClassifyWith(b.String(), testOpts)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("%d operands took %v (%s)", 40000, d, v.Level)
	}
}

// A short line of deeply nested parentheses or substitutions is refused
// quickly: the parser's time grows with the square of the nesting, and
// the reasons with its depth times the line's length.
func TestDeepNestingIsRefusedFast(t *testing.T) {
	lines := []string{
		strings.Repeat("(", 40000) + "ls" + strings.Repeat(")", 40000),
		"echo " + strings.Repeat("$(", 20000) + "ls" + strings.Repeat(")", 20000),
		"echo " + strings.Repeat(`"$(echo `, 5000) + "x" + strings.Repeat(`)"`, 5000),
		strings.Repeat("{ ", 5000) + "ls; " + strings.Repeat("} ", 5000),
	}
	for _, line := range lines {
		start := time.Now()
		v := ClassifyWith(line, testOpts)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%.20q… took %v", line, d)
		}
		if v.Level != Dangerous {
			t.Errorf("%.20q… is %s, want dangerous", line, v.Level)
		}
		if _, err := ParseCommands(line); err == nil {
			t.Errorf("%.20q…: ParseCommands did not refuse it", line)
		}
	}
	// Ordinary nesting stays as it was.
	if v := ClassifyWith("( (ls) ) && { { cat go.mod; }; }", testOpts); v.Level != Safe {
		t.Errorf("shallow nesting is %s: %v", v.Level, v.Reasons)
	}
}

// A line just within the nesting bounds, with a long command at the
// bottom, gives a verdict of bounded size: parts and reasons quote at most
// a few kilobytes of it each, not the whole line once per level.
func TestNestedLineVerdictStaysSmall(t *testing.T) {
	line := "echo " + strings.Repeat("$(", 900) + "ls " + strings.Repeat("a ", 30000) + strings.Repeat(")", 900)
	start := time.Now()
	v := ClassifyWith(line, testOpts)
	text := v.Text()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if len(text) > 16<<20 {
		t.Errorf("verdict text is %d bytes for a %d byte line", len(text), len(line))
	}
	if v.Level != Dangerous {
		t.Errorf("level %s, want dangerous", v.Level)
	}
	long := "./" + strings.Repeat("a", 300)
	a, b := ClassifyWith(long+"1", testOpts), ClassifyWith(long+"2", testOpts)
	if a.Parts[0].Program == b.Parts[0].Program {
		t.Errorf("two long program names cut to one: %q", a.Parts[0].Program)
	}
}
