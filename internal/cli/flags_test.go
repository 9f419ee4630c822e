package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/host"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    func(o *Options)
		wantErr string
	}{
		{name: "prompt then flags", args: []string{"-p", "list files", "--allow-read-tools"}, want: func(o *Options) {
			o.Print, o.AllowReadTools, o.Args = true, true, []string{"list files"}
		}},
		{name: "repeated tool", args: []string{"--allow-tool", "bash", "--allow-tool=edit", "-p", "x"}, want: func(o *Options) {
			o.AllowTools, o.Print, o.Args = []string{"bash", "edit"}, true, []string{"x"}
		}},
		{name: "yes alias", args: []string{"--allow-unsafe-tool-execution"}, want: func(o *Options) { o.Yes = true }},
		{name: "iterations", args: []string{"--max-tool-iterations", "0"}, want: func(o *Options) { o.MaxToolIters = 0 }},
		{name: "stdin dash is a prompt word", args: []string{"-p", "-"}, want: func(o *Options) { o.Print, o.Args = true, []string{"-"} }},
		{name: "double dash ends flags", args: []string{"-p", "--", "--not-a-flag"}, want: func(o *Options) { o.Print, o.Args = true, []string{"--not-a-flag"} }},
		{name: "json mode", args: []string{"--mode=json"}, want: func(o *Options) { o.Mode = "json" }},
		{name: "output-format stream-json", args: []string{"--output-format", "stream-json"}, want: func(o *Options) { o.Mode = "json" }},
		{name: "output-format json", args: []string{"--output-format=json"}, want: func(o *Options) { o.Mode = "json" }},
		{name: "output-format text", args: []string{"--mode", "json", "--output-format", "text"}, want: func(o *Options) { o.Mode = "text" }},
		{name: "skip permissions is yes", args: []string{"--dangerously-skip-permissions"}, want: func(o *Options) { o.Yes, o.SkipPermissions = true, true }},
		{name: "chdir", args: []string{"-C", "../api", "-p", "x"}, want: func(o *Options) { o.Chdir, o.Print, o.Args = "../api", true, []string{"x"} }},
		{name: "chdir equals", args: []string{"-C=sub"}, want: func(o *Options) { o.Chdir = "sub" }},
		{name: "max input", args: []string{"--max-input-bytes", "2000000"}, want: func(o *Options) { o.MaxInputBytes = 2000000 }},
		{name: "sessions all", args: []string{"sessions", "--all"}, want: func(o *Options) { o.All, o.Args = true, []string{"sessions"} }},
		{name: "dash prompt after double dash", args: []string{"-p", "--", "-1 is negative?"}, want: func(o *Options) { o.Print, o.Args = true, []string{"-1 is negative?"} }},
		{name: "-C twice chains", args: []string{"-C", "../other", "-C", "sub", "-C", "/abs"}, want: func(o *Options) { o.Chdir = "/abs" }},
		{name: "-C relative to the one before", args: []string{"-C", "../other", "-C", "sub"}, want: func(o *Options) { o.Chdir = "../other/sub" }},
		{name: "unknown flag of a subcommand", args: []string{"sessions", "--bogus"}, wantErr: `wisp sessions: unknown flag "--bogus" (wisp sessions --help lists its flags)`},
		{name: "unknown flag", args: []string{"--nope"}, wantErr: `unknown flag --nope (to send a prompt that starts with "-", put it after --: wisp -p -- "--nope ..."; flags: wisp --help)`},
		{name: "dash prompt without double dash", args: []string{"-p", "-1 is negative?"}, wantErr: `unknown flag "-1 is negative?" (to send a prompt that starts with "-", put it after --: wisp -p -- "-1 is negative?"; flags: wisp --help)`},
		{name: "short dash word", args: []string{"-p", "-1"}, wantErr: `unknown flag -1 (to send a prompt that starts with "-", put it after --: wisp -p -- "-1 ..."; flags: wisp --help)`},
		{name: "unknown flag stays on one line", args: []string{"-x\nline two"}, wantErr: `unknown flag "-x\nline two" (to send a prompt that starts with "-", put it after --: wisp -p -- "-x\nline two"; flags: wisp --help)`},
		{name: "bad output format", args: []string{"--output-format", "xml"}, wantErr: `--output-format must be text, json or stream-json, not "xml"`},
		{name: "zero input limit", args: []string{"--max-input-bytes", "0"}, wantErr: `--max-input-bytes takes a whole number from 1 to 33554432 (32 MiB, about what a provider accepts in one request), not "0"`},
		{name: "empty chdir", args: []string{"-C", ""}, wantErr: "-C needs a folder, not an empty word"},
		{name: "missing value", args: []string{"--model"}, wantErr: "flag --model needs a value (NAME)"},
		{name: "bad mode", args: []string{"--mode", "xml"}, wantErr: `--mode must be text, json or rpc, not "xml"`},
		{name: "negative iterations", args: []string{"--max-tool-iterations", "-1"}, wantErr: `--max-tool-iterations takes a whole number ≥ 0, not "-1"`},
		{name: "value on a bool", args: []string{"--yes=1"}, wantErr: "flag --yes=1 takes no value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFlags(tc.args)
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || ue.Msg != tc.wantErr {
					t.Fatalf("err = %v, want usage error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Options{Mode: "text", Options: host.Options{MaxToolIters: -1}}
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"ok", nil, ExitOK},
		{"usage", usagef("bad"), ExitUsage},
		{"interrupted", errInterrupted, ExitInterrupt},
		{"failure", errors.New("boom"), ExitFailure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err, IO{Stderr: discard{}}); got != tc.want {
				t.Errorf("exit code %d, want %d", got, tc.want)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func FuzzParseFlags(f *testing.F) {
	f.Add("-p\x00hello\x00--allow-tool\x00bash")
	f.Add("--max-tool-iterations=3\x00--mode\x00json")
	f.Fuzz(func(t *testing.T, joined string) {
		var args []string
		start := 0
		for i := 0; i <= len(joined); i++ {
			if i == len(joined) || joined[i] == 0 {
				args = append(args, joined[start:i])
				start = i + 1
			}
		}
		o, err := parseFlags(args)
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("a bad command line must be a usage error, got %T %v", err, err)
			}
			if strings.HasPrefix(ue.Msg, "unknown flag") && strings.ContainsAny(ue.Msg, "\n\r") {
				t.Fatalf("the unknown-flag error must stay on one line: %q", ue.Msg)
			}
			return
		}
		if o.MaxToolIters < -1 || (o.Mode != "text" && o.Mode != "json") {
			t.Fatalf("invalid options accepted: %+v", o)
		}
	})
}

func TestLeadingChdir(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantArgs []string
		wantDir  string
		wantErr  string
	}{
		{name: "none", args: []string{"sessions"}, wantArgs: []string{"sessions"}},
		{name: "before a subcommand", args: []string{"-C", "api", "sessions", "--all"}, wantArgs: []string{"sessions", "--all"}, wantDir: "api"},
		{name: "equals form", args: []string{"-C=api", "classify", "--", "ls"}, wantArgs: []string{"classify", "--", "ls"}, wantDir: "api"},
		{name: "last one wins", args: []string{"-C", "a", "-C", "b", "tools"}, wantArgs: []string{"tools"}, wantDir: "b"},
		{name: "not after the first word", args: []string{"classify", "--", "git", "-C", "repo", "status"}, wantArgs: []string{"classify", "--", "git", "-C", "repo", "status"}},
		{name: "missing value", args: []string{"-C"}, wantErr: "flag -C needs a value (DIR)"},
		{name: "empty value", args: []string{"-C=", "tools"}, wantErr: "-C needs a folder, not an empty word"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, dir, err := leadingChdir(tc.args)
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || ue.Msg != tc.wantErr {
					t.Fatalf("err = %v, want usage error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || dir != tc.wantDir || !reflect.DeepEqual(args, tc.wantArgs) {
				t.Errorf("got %q, %q, %v; want %q, %q", args, dir, err, tc.wantArgs, tc.wantDir)
			}
		})
	}
}

func TestWantsHelp(t *testing.T) {
	tests := []struct {
		cmd  string
		args []string
		want bool
	}{
		{"tools", []string{"--help"}, true},
		{"tools", []string{"--json", "-h"}, true},
		{"sessions", []string{"--all", "--help"}, true},
		{"classify", []string{"--help"}, true},
		{"classify", []string{"--json", "-h"}, true},
		{"classify", []string{"grep", "-h", "x"}, false},
		{"classify", []string{"--", "ls", "--help"}, false},
		{"logs", []string{"--last", "3"}, false},
		{"skills", nil, false},
	}
	for _, tc := range tests {
		if got := wantsHelp(tc.cmd, tc.args); got != tc.want {
			t.Errorf("wantsHelp(%s, %q) = %v, want %v", tc.cmd, tc.args, got, tc.want)
		}
	}
}

func TestShellWord(t *testing.T) {
	tests := map[string]string{
		"/home/a/proj":    "/home/a/proj",
		"/home/a/my proj": "'/home/a/my proj'",
		"/tmp/it's":       `'/tmp/it'\''s'`,
		"~/x":             "'~/x'",
		"/a/$HOME/b":      "'/a/$HOME/b'",
	}
	for in, want := range tests {
		if got := host.ShellWord(in); got != want {
			t.Errorf("host.ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
