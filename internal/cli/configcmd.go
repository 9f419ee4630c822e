package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/host"
)

// printSettings shows each setting, its value and where it came from, in
// aligned columns.
func printSettings(sys IO, list []host.Setting) error {
	tw := tabwriter.NewWriter(sys.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, s.Value, s.Source)
	}
	return tw.Flush()
}
