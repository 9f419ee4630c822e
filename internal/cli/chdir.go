package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// leadingChdir takes the -C DIR flags that come before a subcommand off
// the command line and returns the last one's DIR. Only the leading ones:
// a -C further on belongs to the subcommand's own words
// (`wisp classify -- git -C repo status`) or is read by parseFlags.
func leadingChdir(args []string) ([]string, string, error) {
	dir := ""
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-C":
			if len(args) < 2 {
				return nil, "", usagef("flag -C needs a value (DIR)")
			}
			dir, args = args[1], args[2:]
		case strings.HasPrefix(a, "-C="):
			dir, args = strings.TrimPrefix(a, "-C="), args[1:]
		default:
			return args, dir, nil
		}
		if dir == "" {
			return nil, "", usagef("-C needs a folder, not an empty word")
		}
	}
	return args, dir, nil
}

// enterDir makes DIR the working directory of the process and of the
// run, as `cd DIR && wisp ...` would: tools, the sandbox, sessions and
// the project's trust all see DIR. A DIR that is missing or no folder is
// a usage error naming it.
func enterDir(sys IO, dir string) (IO, error) {
	if dir == "" {
		return sys, usagef("-C needs a folder, not an empty word")
	}
	shown := dir
	if strings.ContainsFunc(dir, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		shown = strconv.Quote(dir)
	}
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(sys.Workdir, abs)
	}
	abs = filepath.Clean(abs)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sys, usagef("-C %s: no such folder", shown)
	case err != nil:
		return sys, usagef("-C %s: %v", shown, err)
	case !fi.IsDir():
		return sys, usagef("-C %s: not a folder", shown)
	}
	if err := os.Chdir(abs); err != nil {
		return sys, fmt.Errorf("-C %s: %w", shown, err)
	}
	sys.Workdir = abs
	return sys, nil
}
