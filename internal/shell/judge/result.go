package judge

import "unicode/utf8"

// Result accumulates the judgement of one part.
type Result struct {
	Level   Level
	Reasons []string
	Program string
	Verb    string
	Flags   PartFlags
	Levels  []Level // of each reason
	Forms   []string
	Later   []func() // nested parts, recorded after this one
	NoScan  bool     // arguments are text, not paths: skip the secret scan
	Writes  []string // files written, resolved
}

// MaxReason bounds a reason's length: reasons quote the words they are
// about, and a line of deeply nested substitutions would otherwise
// quote most of itself at every level.
const MaxReason = 1024

// Add raises the result to l for reason (cut to MaxReason bytes).
func (r *Result) Add(l Level, reason string) {
	reason = Clip(reason, MaxReason)
	r.Level = max(r.Level, l)
	for i, old := range r.Reasons {
		if old == reason {
			r.Levels[i] = max(r.Levels[i], l)
			return
		}
	}
	r.Reasons = append(r.Reasons, reason)
	r.Levels = append(r.Levels, l)
}

// One is a result with a single reason.
func One(l Level, reason string) *Result {
	r := &Result{}
	r.Add(l, reason)
	return r
}

// PartFlags are facts about a part that matter to its neighbours in a
// pipeline.
type PartFlags struct {
	Net    bool    // reaches the network: its output may be a download
	Levels []Level // the level of each of the part's reasons
}

// Clip cuts s to at most n bytes on a character boundary, ending it with
// "…" when anything was cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
