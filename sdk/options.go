package sdk

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host"
)

// Options are what a session is asked to be.
type Options struct {
	// Provider is anthropic, openai, openai-compatible or fake (the
	// built-in offline demo). Empty takes the one Home's settings.json
	// names.
	Provider string
	// Model and BaseURL override the provider's defaults.
	Model, BaseURL string
	// APIKey is the provider's key. It is handed to the provider only:
	// never written to the transcript, the audit or a tool's output, and
	// never seen by a command. Empty takes the key Home's settings.json
	// holds; the process's environment is not consulted.
	APIKey string
	// Dir is the workspace; empty is the process's working folder.
	Dir string
	// Tools are the tools the model sees: tool names, ToolsRead (every
	// read-only tool) or ToolsAll. None by default.
	Tools []string
	// Approver answers what the gate asks about (a command that is not
	// safe, a file change). Nil refuses every such call.
	Approver func(ctx context.Context, req ApprovalRequest) Approval
	// Trust lets wisp read the project's own files: its .wisp/settings,
	// AGENTS.md and skills. False ignores them, whatever the trust store
	// says.
	Trust bool
	// Home is the wisp home (settings, custom tools, remembered
	// approvals, audit log); empty gives the session a private one,
	// removed by Close (see the package documentation).
	Home string
	// SessionDir is where the transcript is kept; empty is Home's
	// sessions folder.
	SessionDir string
	// Resume continues the session with this id (or id prefix) from
	// SessionDir.
	Resume string
	// Extensions registers tools, as the setup function of Main does.
	Extensions func(api *ExtensionAPI) error
	// MaxToolIterations bounds the rounds of tool calls of one prompt;
	// 0 leaves them uncapped, as the command line does.
	MaxToolIterations int
	// Stderr gets wisp's warnings and notes; nil is os.Stderr.
	Stderr io.Writer
}

// The groups Options.Tools takes besides tool names.
const (
	// ToolsRead exposes every read-only tool.
	ToolsRead = "@read"
	// ToolsAll exposes every tool; each call that is not safe still goes
	// to the Approver.
	ToolsAll = "@all"
)

// ApprovalRequest is what the gate asks about one call.
type ApprovalRequest struct {
	CallID string
	Tool   string
	Class  Class
	// Subject is the whole shell line, or the tool and its arguments.
	Subject string
	// Part is the simple command asked about (empty for file tools).
	Part string
	// Level is the classifier's verdict: safe, moderate or dangerous.
	Level   string
	Reasons []string
	// Pattern is what a remembered answer covers (`git push`).
	Pattern string
	// Preview shows what a file tool will write.
	Preview string
}

// Approval is the answer to an ApprovalRequest.
type Approval struct {
	Allow bool
	// Scope is how long a yes is remembered; empty is ScopeOnce. A
	// dangerous line is never remembered beyond the session.
	Scope Scope
	// Note is told to the model with a no (`use rg instead`).
	Note string
}

// Scope is how long an approval is remembered.
type Scope = approval.Scope

// The scopes.
const (
	ScopeOnce    = approval.ScopeOnce
	ScopeSession = approval.ScopeSession
	ScopeProject = approval.ScopeProject
	ScopeAlways  = approval.ScopeAlways
)

// gateApprover adapts the embedder's Approver to the gate.
func gateApprover(f func(context.Context, ApprovalRequest) Approval) gate.Approver {
	if f == nil {
		return gate.Deny{Reason: "no approver is configured (sdk.Options.Approver)"}
	}
	return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		a := f(ctx, ApprovalRequest{
			CallID: r.CallID, Tool: r.Tool, Class: r.Class, Subject: r.Subject, Part: r.Part,
			Level: r.Level.String(), Reasons: append([]string(nil), r.Reasons...), Pattern: r.Pattern, Preview: r.Preview,
		})
		if err := ctx.Err(); err != nil {
			return gate.Answer{}, err
		}
		if a.Allow && a.Scope == "" {
			a.Scope = ScopeOnce
		}
		return gate.Answer{Allow: a.Allow, Scope: a.Scope, Note: a.Note}, nil
	})
}

// hostOptions turns o into the core's options.
func (o Options) hostOptions() host.Options {
	h := host.Options{Provider: o.Provider, Model: o.Model, BaseURL: o.BaseURL, SessionDir: o.SessionDir, Resume: o.Resume, MaxToolIters: o.MaxToolIterations}
	if h.MaxToolIters <= 0 {
		h.MaxToolIters = -1
	}
	for _, t := range o.Tools {
		switch t {
		case ToolsRead:
			h.AllowReadTools = true
		case ToolsAll:
			h.AllowAllTools = true
		default:
			h.AllowTools = append(h.AllowTools, t)
		}
	}
	return h
}

// environment is what the session sees of the process's environment:
// everything but wisp's own variables and the providers' (so that
// neither the provider nor its key, nor the wisp home, come from there),
// with the session's own values in their place.
func (o Options) environment(home string) func(string) string {
	own := map[string]string{"WISP_HOME": home, "WISP_TRUST": "0", "WISP_API_KEY": o.APIKey}
	if o.Trust {
		own["WISP_TRUST"] = "1"
	}
	return func(name string) string {
		if v, ok := own[name]; ok {
			return v
		}
		if strings.HasPrefix(name, "WISP_") || strings.HasPrefix(name, "ANTHROPIC_") || strings.HasPrefix(name, "OPENAI_") {
			return ""
		}
		return os.Getenv(name)
	}
}

// privateHome makes a session's own wisp home: in the user cache folder
// rather than the temporary one, because commands may not write any
// folder that holds a wisp home, and /tmp should stay theirs.
func privateHome() (string, error) {
	parent, err := os.UserCacheDir()
	if err == nil {
		err = os.MkdirAll(parent, 0o700)
	}
	if err != nil {
		parent = ""
	}
	dir, err := os.MkdirTemp(parent, "wisp-sdk-home-")
	if err != nil {
		return "", fmt.Errorf("make a private wisp home: %w", err)
	}
	return dir, nil
}

// workdir is the session's workspace, absolute.
func (o Options) workdir() (string, error) {
	dir := o.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the working folder: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a folder", abs)
	}
	return abs, nil
}

// helper is the program a command's sandbox helper runs, or why there is
// none.
func helper() (self, missing string) {
	if !helperServed.Load() {
		return "", "sdk.Init was not called first in main, so this program cannot act as wisp's sandbox helper"
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Sprintf("locate this program: %v", err)
	}
	return self, ""
}
