package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
)

//go:embed current_date.md
var currentDateDescription string

const currentDateSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// currentDate tells the model the local date and time.
type currentDate struct {
	now  func() time.Time
	zone func() string // the IANA name of the local zone, or ""
}

// CurrentDate returns the current_date tool.
func CurrentDate() tool.Tool {
	return currentDate{now: time.Now, zone: currentDateZone}
}

func (currentDate) Spec() tool.Spec {
	return tool.Spec{
		Name:        "current_date",
		Description: strings.TrimSpace(currentDateDescription),
		Schema:      json.RawMessage(currentDateSchema),
		Class:       tool.Read,
	}
}

// Describe states the limits current_date enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (currentDate) Describe() (limits []string, example string) {
	return nil, "What day of the week is it?"
}

func (c currentDate) Run(_ context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	if msg := currentDateNoArgs(args); msg != "" {
		return tool.Errorf("current_date: %s", msg), nil
	}
	t := c.now()
	abbr, _ := t.Zone()
	zone := abbr + " (UTC" + t.Format("-07:00")
	name := t.Location().String()
	if name == "Local" {
		name = c.zone()
	}
	if name != "" && name != abbr {
		zone += ", " + name
	}
	zone += ")"
	return tool.Result{Content: fmt.Sprintf("%s\nweekday: %s\ntime zone: %s\nISO 8601: %s\n",
		t.Format("2006-01-02 15:04:05"), t.Weekday(), zone, t.Format(time.RFC3339))}, nil
}

// currentDateNoArgs accepts an empty object (or nothing) as the arguments of a
// tool that takes none.
func currentDateNoArgs(args json.RawMessage) string {
	if len(strings.TrimSpace(string(args))) == 0 || strings.TrimSpace(string(args)) == "null" {
		return ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return "arguments must be a JSON object"
	}
	if len(m) > 0 {
		return "takes no arguments"
	}
	return ""
}

// currentDateZone finds the IANA name of the local time zone, which Go
// calls "Local": from TZ, else from where /etc/localtime points.
func currentDateZone() string {
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" && !strings.HasPrefix(tz, "/") {
		return tz
	}
	target, err := os.Readlink("/etc/localtime")
	if err != nil {
		return ""
	}
	if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
		return name
	}
	return ""
}
