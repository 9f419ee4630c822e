package shell

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	fn := os.Getenv("PROBE")
	if fn == "" {
		t.Skip()
	}
	f, _ := os.Open(fn)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := s.Text()
		if l == "" {
			continue
		}
		v := ClassifyWith(l, testOpts)
		fmt.Printf("%-9s %-60s %s\n", v.Level, l, strings.Join(v.Reasons, " | "))
	}
}
