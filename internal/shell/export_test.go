package shell

// LineTable exposes the classifier's table to the external test that runs
// it through the command policy as well.
func LineTable() []struct {
	Name, Line string
	Want       Level
} {
	out := make([]struct {
		Name, Line string
		Want       Level
	}, len(lineTable))
	for i, tc := range lineTable {
		out[i].Name, out[i].Line, out[i].Want = tc.name, tc.line, tc.want
	}
	return out
}

// TestOptions are the options the table runs with.
var TestOptions = testOpts
