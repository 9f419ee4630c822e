package host

import (
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/audit"
)

// The session answers the inspect tool from its live state.

// InspectConfig shows the session's effective settings and where each
// came from, as wisp config does, with the user's deny rules spelled
// out.
func (s *Session) InspectConfig() string {
	f := s.cfg.File
	var b strings.Builder
	for _, st := range s.conf.Settings() {
		fmt.Fprintf(&b, "%s: %s (%s)\n", st.Key, st.Value, st.Source)
	}
	for _, p := range f.CommandPolicy.Deny {
		fmt.Fprintf(&b, "  user deny: %s\n", p)
	}
	return b.String()
}

// InspectStatus shows the session, the model, the sandbox and the usage.
func (s *Session) InspectStatus() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wisp %s\nsession: %s\nprovider: %s\nmodel: %s\nworkdir: %s\nsandbox: %s\n",
		Version, first(s.sessionID(), "(none)"), s.choice.Name, s.choice.Model, s.sys.Workdir, s.parts.sandboxNote)
	if s.gate != nil {
		b.WriteString(s.gate.SandboxStatus())
	}
	fmt.Fprintf(&b, "temp folder for commands: %s\n", first(s.temp.Commands, "(none: "+s.temp.Why+")"))
	if s.parts.goCache != "" {
		fmt.Fprintf(&b, "go build cache for commands: %s (go's own cannot be written in the sandbox; this one starts empty)\n", s.parts.goCache)
	}
	if s.agent != nil {
		u := s.agent.Usage()
		fmt.Fprintf(&b, "tokens so far: %d in, %d out\n", u.InputTokens, u.OutputTokens)
	}
	fmt.Fprintf(&b, "tools: %s\n", strings.Join(s.tools.Names(), ", "))
	return b.String()
}

// InspectApprovals lists the remembered answers.
func (s *Session) InspectApprovals() string {
	if s.parts.store == nil {
		return "no approvals store"
	}
	list, err := s.parts.store.List()
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "warning: %v\n", err)
	}
	if len(list) == 0 {
		b.WriteString("no remembered approvals\n")
	}
	for _, e := range list {
		fmt.Fprintf(&b, "%s %-7s %s (up to %s)", e.ID, e.Scope, e.Pattern, e.Level)
		if !e.Expires.IsZero() {
			fmt.Fprintf(&b, " until %s", e.Expires.Format("2006-01-02"))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// InspectAudit shows this session's last audit lines.
func (s *Session) InspectAudit(last int) string {
	lines, err := audit.Read(audit.Dir(s.cfg.Paths.Home), audit.Filter{Session: s.sessionID(), Last: last})
	if err != nil {
		return "audit: " + err.Error()
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(audit.FormatText(l))
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "no audit lines for this session yet"
	}
	return b.String()
}
