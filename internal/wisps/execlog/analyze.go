package execlog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/wisps"
)

// AnalysisWindow is how far back the failure-analysis pass looks.
const AnalysisWindow = 14 * 24 * time.Hour

// analysisSystem is the analysis directive.
const analysisSystem = `You analyse the execution records of wisps (supervised tool pipelines) to find what keeps failing and what reliably works.
Answer with one JSON object and nothing else:
{"failure_patterns":[{"description":"...","category":"Structural|External|Judgment|Data","frequency":N,"recommendation":"..."}],
 "skill_updates":[{"skill":"the wisp description or skill it applies to","annotation":"a negative example or corrected pattern to append"}],
 "promotion_candidates":[{"description":"...","successes":N,"reason":"..."}]}
A failure pattern recurs (two or more failures of one kind). External failures are transient: recommend retries or nothing, never a skill change. A promotion candidate succeeded consistently (three or more successes, no recent failure). Use empty arrays when there is nothing to report.`

// Group is the records of one description.
type Group struct {
	Description string
	Runs        int
	Successes   int
	Failures    map[wisps.Category]int
	// Errors are distinct failure messages with their step, most recent first.
	Errors []string
	// Retries counts successes that corrected a failure.
	Retries int
}

// GroupRecords groups records since a time by description, the most
// runs first.
func GroupRecords(recs []wisps.Record, since time.Time) []Group {
	by := map[string]*Group{}
	for _, r := range recs {
		if r.StartedAt.Before(since) {
			continue
		}
		g := by[r.Description]
		if g == nil {
			g = &Group{Description: r.Description, Failures: map[wisps.Category]int{}}
			by[r.Description] = g
		}
		g.Runs++
		if r.Success {
			g.Successes++
			if r.RetryOf != "" {
				g.Retries++
			}
			continue
		}
		g.Failures[r.FailureCategory]++
		msg := fmt.Sprintf("step %s [%s]: %s", r.FailedStep, r.FailureCategory, cut(r.ErrorMessage, 300))
		if len(g.Errors) < 5 && !contains(g.Errors, msg) {
			g.Errors = append(g.Errors, msg)
		}
	}
	out := make([]Group, 0, len(by))
	for _, g := range by {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Runs != out[j].Runs {
			return out[i].Runs > out[j].Runs
		}
		return out[i].Description < out[j].Description
	})
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// AnalysisRequest is the directive and the summary sent to the model.
func AnalysisRequest(groups []Group) (system, user string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Wisp executions of the last %d days, grouped by description:\n", int(AnalysisWindow.Hours()/24))
	for _, g := range groups {
		fmt.Fprintf(&b, "\n## %q: %d runs, %d succeeded (%d after a retry)\n", g.Description, g.Runs, g.Successes, g.Retries)
		cats := make([]string, 0, len(g.Failures))
		for c, n := range g.Failures {
			cats = append(cats, fmt.Sprintf("%s %d", c, n))
		}
		sort.Strings(cats)
		if len(cats) > 0 {
			fmt.Fprintf(&b, "failures: %s\n", strings.Join(cats, ", "))
		}
		for _, e := range g.Errors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	return analysisSystem, b.String()
}

// Analysis is what the model found.
type Analysis struct {
	FailurePatterns []struct {
		Description    string         `json:"description"`
		Category       wisps.Category `json:"category"`
		Frequency      int            `json:"frequency"`
		Recommendation string         `json:"recommendation"`
	} `json:"failure_patterns"`
	SkillUpdates []struct {
		Skill      string `json:"skill"`
		Annotation string `json:"annotation"`
	} `json:"skill_updates"`
	PromotionCandidates []struct {
		Description string `json:"description"`
		Successes   int    `json:"successes"`
		Reason      string `json:"reason"`
	} `json:"promotion_candidates"`
}

// ParseAnalysis reads the model's answer: the first JSON object in it.
func ParseAnalysis(text string) (Analysis, error) {
	var a Analysis
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return a, fmt.Errorf("the model's answer holds no JSON object")
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &a); err != nil {
		return a, fmt.Errorf("the model's answer is not the analysis JSON: %v", err)
	}
	return a, nil
}

// Text renders an analysis for people.
func (a Analysis) Text() string {
	var b strings.Builder
	b.WriteString("Recurring failure patterns:\n")
	if len(a.FailurePatterns) == 0 {
		b.WriteString("  none\n")
	}
	for _, p := range a.FailurePatterns {
		fmt.Fprintf(&b, "- %q [%s] ×%d: %s\n", p.Description, p.Category, p.Frequency, p.Recommendation)
	}
	b.WriteString("\nSuggested skill annotations:\n")
	if len(a.SkillUpdates) == 0 {
		b.WriteString("  none\n")
	}
	for _, u := range a.SkillUpdates {
		fmt.Fprintf(&b, "- %s: %s\n", u.Skill, u.Annotation)
	}
	b.WriteString("\nPromotion candidates:\n")
	if len(a.PromotionCandidates) == 0 {
		b.WriteString("  none\n")
	}
	for _, c := range a.PromotionCandidates {
		fmt.Fprintf(&b, "- %q (%d successes): %s\n", c.Description, c.Successes, c.Reason)
	}
	return b.String()
}

// cut shortens t to n bytes without splitting a character.
func cut(t string, n int) string {
	if len(t) <= n {
		return t
	}
	for n > 0 && t[n]&0xC0 == 0x80 {
		n--
	}
	return t[:n]
}
