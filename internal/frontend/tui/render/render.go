// Package render turns text into styled lines of the full screen: a
// model's markdown, the unified diff of an edit, and text from a model
// or a tool made safe and fitted to a width. It draws strings only; it
// must never hold screen state, read input or reach the session.
package render

import "charm.land/lipgloss/v2"

// Styles are the looks the drawing uses; the screen chooses them (with
// NO_COLOR, none carries a colour).
type Styles struct {
	Heading, Bold, Italic lipgloss.Style
	Code, CodeBlock       lipgloss.Style
	Quote, Faint          lipgloss.Style
	Add, Del, Hunk        lipgloss.Style
}
