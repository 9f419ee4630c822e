// Command grepdriver runs wisp's built-in grep tool once over a folder and
// prints its result, so bench/grep.sh can time it beside GNU grep.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
)

func main() {
	root := flag.String("root", ".", "workspace root to search")
	pattern := flag.String("pattern", "", "RE2 pattern")
	ignoreCase := flag.Bool("i", false, "ignore case")
	flag.Parse()
	args, err := json.Marshal(map[string]any{"pattern": *pattern, "ignore_case": *ignoreCase})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res, err := builtin.Grep().Run(context.Background(), &tool.Env{Workdir: *root}, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(res.Content)
	if res.IsError {
		os.Exit(1)
	}
}
