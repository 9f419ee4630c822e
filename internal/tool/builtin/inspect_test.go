package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type fakeSource struct{ audit string }

func (fakeSource) InspectConfig() string    { return "threshold: moderate" }
func (fakeSource) InspectStatus() string    { return "session: abc" }
func (fakeSource) InspectApprovals() string { return "none" }
func (f fakeSource) InspectAudit(last int) string {
	if f.audit != "" {
		return f.audit
	}
	return strings.Repeat("x", last)
}

func TestInspect(t *testing.T) {
	big := strings.Repeat("a line of audit text\n", 400)
	tests := []struct {
		name, args, want string
		src              fakeSource
		isErr            bool
	}{
		{name: "config", args: `{"what":"config"}`, want: "threshold: moderate"},
		{name: "status", args: `{"what":"status"}`, want: "session: abc"},
		{name: "approvals", args: `{"what":"approvals"}`, want: "none"},
		{name: "audit default last", args: `{"what":"audit"}`, want: strings.Repeat("x", 20)},
		{name: "audit last 100", args: `{"what":"audit","last":100}`, want: strings.Repeat("x", 100)},
		{name: "last too big", args: `{"what":"audit","last":101}`, want: "between 1 and 100", isErr: true},
		{name: "unknown what", args: `{"what":"secrets"}`, want: "config, status, approvals or audit", isErr: true},
		{name: "malformed", args: `{"what":`, want: "malformed", isErr: true},
		{name: "bounded", args: `{"what":"audit"}`, src: fakeSource{audit: big}, want: "[cut at 4096 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Inspect(tc.src).Run(context.Background(), nil, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.want) {
				t.Errorf("got %+v, want error=%v containing %q", res, tc.isErr, tc.want)
			}
			if len(res.Content) > inspectLimit {
				t.Errorf("output is %d bytes, over %d", len(res.Content), inspectLimit)
			}
		})
	}
}
