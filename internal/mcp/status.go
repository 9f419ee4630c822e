package mcp

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteStatus shows the servers one line each: name, state, how many
// tools, and the failure, in aligned columns (wisp mcp status, /mcp).
func WriteStatus(w io.Writer, list []Status) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, st := range list {
		line := fmt.Sprintf("%s\t%s\t%d tools", st.Name, st.State, st.Tools)
		if st.Error != "" {
			line += "\t" + st.Error
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
