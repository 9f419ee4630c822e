package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
)

//go:embed inspect.md
var inspectDescription string

const inspectSchema = `{"type":"object","properties":{"what":{"type":"string","enum":["config","status","approvals","audit"]},"last":{"type":"integer","minimum":1,"maximum":100}},"required":["what"],"additionalProperties":false}`

// inspectLimit bounds what inspect returns: it is for a quick look, and
// every byte goes to the model.
const inspectLimit = 4096

// InspectSource is where inspect reads wisp's state; the runtime provides
// it. Each method returns text for the model.
type InspectSource interface {
	InspectConfig() string
	InspectStatus() string
	InspectApprovals() string
	InspectAudit(last int) string
}

type inspectTool struct{ src InspectSource }

// Inspect returns the read-only inspect tool over src.
func Inspect(src InspectSource) tool.Tool { return inspectTool{src: src} }

func (inspectTool) Spec() tool.Spec {
	return tool.Spec{Name: "inspect", Description: strings.TrimSpace(inspectDescription), Schema: json.RawMessage(inspectSchema), Class: tool.Read}
}

// Describe states the limits inspect enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (inspectTool) Describe() (limits []string, example string) {
	return []string{"what = config, status, approvals or audit", "last ≤ 100", fmt.Sprintf("at most %d KiB", inspectLimit>>10)},
		"Which commands have I approved for this project?"
}

func (t inspectTool) Run(_ context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	var a struct {
		What string `json:"what"`
		Last *int   `json:"last"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("inspect: malformed arguments: %v", err), nil
	}
	last := 20
	if a.Last != nil {
		last = *a.Last
	}
	if last < 1 || last > 100 {
		return tool.Errorf("inspect: last must be between 1 and 100, not %d", last), nil
	}
	if t.src == nil {
		return tool.Errorf("inspect: nothing to inspect in this run"), nil
	}
	var out string
	switch a.What {
	case "config":
		out = t.src.InspectConfig()
	case "status":
		out = t.src.InspectStatus()
	case "approvals":
		out = t.src.InspectApprovals()
	case "audit":
		out = t.src.InspectAudit(last)
	default:
		return tool.Errorf("inspect: what must be config, status, approvals or audit, not %q", a.What), nil
	}
	return tool.Result{Content: bound(out, inspectLimit)}, nil
}

// bound keeps the first n bytes of s on a line boundary, saying so.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := fmt.Sprintf("\n[cut at %d bytes of %d]\n", n, len(s))
	cut := s[:n-len(note)]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return cut + note
}
