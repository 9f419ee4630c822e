package execlog

import (
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/wisps"
)

func TestGroupRecords(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	recs := []wisps.Record{
		{Description: "search mail", StartedAt: now.Add(-time.Hour), FailedStep: "fetch", FailureCategory: wisps.Data, ErrorMessage: "Message not found"},
		{Description: "search mail", StartedAt: now.Add(-2 * time.Hour), FailedStep: "fetch", FailureCategory: wisps.Data, ErrorMessage: "Message not found"},
		{Description: "search mail", StartedAt: now.Add(-3 * time.Hour), Success: true, RetryOf: "wisp-1"},
		{Description: "report", StartedAt: now.Add(-time.Hour), Success: true},
		{Description: "old", StartedAt: now.Add(-15 * 24 * time.Hour)},
	}
	groups := GroupRecords(recs, now.Add(-AnalysisWindow))
	if len(groups) != 2 || groups[0].Description != "search mail" || groups[0].Runs != 3 || groups[0].Successes != 1 || groups[0].Retries != 1 ||
		groups[0].Failures[wisps.Data] != 2 || len(groups[0].Errors) != 1 {
		t.Fatalf("groups %+v", groups)
	}
	system, user := AnalysisRequest(groups)
	for _, want := range []string{`## "search mail": 3 runs, 1 succeeded (1 after a retry)`, "failures: Data 2", "- step fetch [Data]: Message not found", `## "report": 1 runs`} {
		if !strings.Contains(user, want) {
			t.Errorf("request lacks %q:\n%s", want, user)
		}
	}
	if !strings.Contains(system, `"failure_patterns"`) || strings.Contains(user, "old") {
		t.Fatal("directive or window wrong")
	}
}

func TestParseAnalysis(t *testing.T) {
	cases := []struct {
		name, text, want, err string
	}{
		{"fenced json", "Here:\n```json\n{\"failure_patterns\":[{\"description\":\"search mail\",\"category\":\"Data\",\"frequency\":2,\"recommendation\":\"check ids\"}],\"skill_updates\":[{\"skill\":\"mail\",\"annotation\":\"ids expire\"}],\"promotion_candidates\":[]}\n```",
			"- \"search mail\" [Data] ×2: check ids\n\nSuggested skill annotations:\n- mail: ids expire\n\nPromotion candidates:\n  none\n", ""},
		{"no json", "nothing to say", "", "holds no JSON object"},
		{"wrong shape", `{"failure_patterns":"x"}`, "", "not the analysis JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseAnalysis(c.text)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || !strings.HasSuffix(a.Text(), c.want) {
				t.Fatalf("text %q (%v)", a.Text(), err)
			}
		})
	}
}
