package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/tool"
)

//go:embed notify.md
var notifyDescription string

const notifySchema = `{"type":"object","properties":{` +
	`"title":{"type":"string"},` +
	`"message":{"type":"string"}` +
	`},"required":["message"],"additionalProperties":false}`

// Limits of notify.
const (
	notifyMaxTitle   = 64
	notifyMaxMessage = 256
	notifyPerMinute  = 5
)

// NotifyTool shows desktop notifications through the terminal with the
// OSC 9 escape sequence, which terminals such as iTerm2, WezTerm, kitty and
// Windows Terminal turn into a system notification.
type NotifyTool struct {
	out io.Writer
	now func() time.Time

	mu   sync.Mutex
	sent []time.Time // calls within the last minute
}

// Notify returns the notify tool of one session, writing to out (the
// terminal's stderr) when the session is interactive.
func Notify(out io.Writer) *NotifyTool {
	return &NotifyTool{out: out, now: time.Now}
}

func (*NotifyTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "notify",
		Description: strings.TrimSpace(notifyDescription),
		Schema:      json.RawMessage(notifySchema),
		Class:       tool.Read,
	}
}

// Describe states the limits notify enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (*NotifyTool) Describe() (limits []string, example string) {
	return []string{fmt.Sprintf("title ≤ %d and message ≤ %d characters", notifyMaxTitle, notifyMaxMessage), fmt.Sprintf("at most %d a minute", notifyPerMinute), "delivered only to a terminal (OSC 9)"},
		"Run the build and notify me when it is done."
}

func (n *NotifyTool) Run(_ context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	var a struct {
		Title   string  `json:"title"`
		Message *string `json:"message"`
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return tool.Errorf("notify arguments: %v", strings.TrimPrefix(err.Error(), "json: ")), nil
	}
	if a.Message == nil || strings.TrimSpace(*a.Message) == "" {
		return tool.Errorf("notify: message is required"), nil
	}
	if c := utf8.RuneCountInString(a.Title); c > notifyMaxTitle {
		return tool.Errorf("notify: title is %d characters; the limit is %d", c, notifyMaxTitle), nil
	}
	if c := utf8.RuneCountInString(*a.Message); c > notifyMaxMessage {
		return tool.Errorf("notify: message is %d characters; the limit is %d", c, notifyMaxMessage), nil
	}
	if wait := n.admit(); wait > 0 {
		return tool.Errorf("notify: at most %d notifications a minute; the next is possible in %ds",
			notifyPerMinute, int(wait.Seconds()+0.999)), nil
	}
	if env == nil || !env.Interactive || n.out == nil {
		return tool.Result{Content: "not delivered: no terminal"}, nil
	}
	text := notifyClean(*a.Message)
	if t := notifyClean(a.Title); t != "" {
		text = t + ": " + text
	}
	if _, err := io.WriteString(n.out, "\x1b]9;"+text+"\x07"); err != nil {
		return tool.Errorf("notify: not delivered: %v", err), nil
	}
	return tool.Result{Content: "delivered"}, nil
}

// admit counts a call against the rate limit, or says how long until one
// is allowed.
func (n *NotifyTool) admit() time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.now()
	keep := n.sent[:0]
	for _, t := range n.sent {
		if now.Sub(t) < time.Minute {
			keep = append(keep, t)
		}
	}
	n.sent = keep
	if len(n.sent) >= notifyPerMinute {
		return n.sent[0].Add(time.Minute).Sub(now)
	}
	n.sent = append(n.sent, now)
	return 0
}

// notifyClean makes text safe inside an escape sequence: control
// characters (ESC and BEL would end it early, newlines break it) become
// spaces.
func notifyClean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
