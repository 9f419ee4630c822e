package transcript

import "github.com/wisp-agent/wisp/internal/chat"

// LastTurns returns the records of branch from the start of its n-th
// last turn on, and how many turns were dropped before it. A turn starts
// at a prompt (a user message with text, not only tool results) and runs
// to the next one, so every tool call kept has its result kept with it.
// The first record kept becomes a root. n < 1 keeps everything.
func LastTurns(branch []Record, n int) (kept []Record, dropped int) {
	var starts []int
	for i, r := range branch {
		if r.Type == TypeMessage && r.Message != nil && r.Message.Role == chat.User && hasText(r.Message) {
			starts = append(starts, i)
		}
	}
	if n < 1 || len(starts) <= n {
		return branch, 0
	}
	cut := starts[len(starts)-n]
	kept = append([]Record(nil), branch[cut:]...)
	kept[0].Parent = ""
	return kept, len(starts) - n
}

func hasText(m *chat.Message) bool {
	for _, b := range m.Content {
		if b.Type == chat.Text && b.Text != "" {
			return true
		}
	}
	return false
}
