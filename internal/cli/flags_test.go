package cli

import (
	"errors"
	"reflect"
	"testing"
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
		{name: "unknown flag", args: []string{"--nope"}, wantErr: "unknown flag --nope (see wisp --help)"},
		{name: "missing value", args: []string{"--model"}, wantErr: "flag --model needs a value (NAME)"},
		{name: "bad mode", args: []string{"--mode", "xml"}, wantErr: `--mode must be text or json, not "xml"`},
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
			want := Options{Mode: "text", MaxToolIters: -1}
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
			return
		}
		if o.MaxToolIters < -1 || (o.Mode != "text" && o.Mode != "json") {
			t.Fatalf("invalid options accepted: %+v", o)
		}
	})
}
