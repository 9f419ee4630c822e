package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// File is ~/.wisp/config.json: the user's tools and the command gate's
// settings.
type File struct {
	Tools                 Tools       `json:"tools"`
	CommandPolicy         Policy      `json:"commandPolicy"`
	Approval              Approval    `json:"approval"`
	Sandbox               Sandbox     `json:"sandbox"`
	CommandTimeoutSeconds int         `json:"commandTimeoutSeconds" range:"1,86400"`
	OutputLimit           OutputLimit `json:"outputLimit"`
}

// Tools are the user's custom tools and the built-ins they turned off.
type Tools struct {
	Custom   json.RawMessage `json:"custom"`
	Disabled []string        `json:"disabled"`
}

// Policy holds extra deny and allow patterns; they add to the defaults.
type Policy struct {
	Deny  []string `json:"deny"`
	Allow []string `json:"allow"`
}

// Approval says when to ask and how long to wait for an answer.
type Approval struct {
	Threshold      string `json:"threshold"`
	TimeoutSeconds int    `json:"timeoutSeconds" range:"1,86400"`
}

// Sandbox configures the OS sandbox commands run in.
type Sandbox struct {
	Enabled       *bool    `json:"enabled"`
	WritablePaths []string `json:"writablePaths"`
	AllowNetwork  *bool    `json:"allowNetwork"`
}

// OutputLimit bounds each stream of a command's output (the tail is kept).
type OutputLimit struct {
	Bytes int `json:"bytes" range:"1,16777216"`
	Lines int `json:"lines" range:"1,1000000"`
}

// Defaults of the gate.
const (
	DefaultThreshold       = "moderate"
	DefaultApprovalTimeout = 600 * time.Second
	DefaultCommandTimeout  = 60 * time.Second
	DefaultOutputBytes     = 50 * 1024
	DefaultOutputLines     = 2000
)

// ConfigFile is the path of the user's gate and tools configuration.
func (p Paths) ConfigFile() string { return filepath.Join(p.Home, "config.json") }

// LoadFile reads ~/.wisp/config.json and checks the gate's settings. A
// missing file is the defaults.
func LoadFile(p Paths) (File, []string, error) {
	var f File
	warns, err := loadFile(p, p.ConfigFile(), &f)
	if err != nil {
		return f, warns, err
	}
	if err := f.check(); err != nil {
		return f, warns, &MalformedError{File: p.Pretty(p.ConfigFile()), What: err.Error()}
	}
	return f, warns, nil
}

func (f File) check() error {
	switch f.Approval.Threshold {
	case "", "safe", "moderate", "dangerous", "never":
	default:
		return fmt.Errorf("approval.threshold: must be safe, moderate, dangerous or never, not %q", f.Approval.Threshold)
	}
	for i, p := range f.Sandbox.WritablePaths {
		if p == "" || !(filepath.IsAbs(p) || p == "~" || len(p) > 1 && p[:2] == "~/") {
			return fmt.Errorf("sandbox.writablePaths[%d]: %q must be an absolute path or start with ~/", i, p)
		}
	}
	return nil
}

// Threshold is the approval threshold with its default.
func (f File) Threshold() string {
	if f.Approval.Threshold == "" {
		return DefaultThreshold
	}
	return f.Approval.Threshold
}

// ApprovalTimeout is how long a question waits for an answer.
func (f File) ApprovalTimeout() time.Duration {
	if f.Approval.TimeoutSeconds == 0 {
		return DefaultApprovalTimeout
	}
	return time.Duration(f.Approval.TimeoutSeconds) * time.Second
}

// CommandTimeout is a command's default timeout.
func (f File) CommandTimeout() time.Duration {
	if f.CommandTimeoutSeconds == 0 {
		return DefaultCommandTimeout
	}
	return time.Duration(f.CommandTimeoutSeconds) * time.Second
}

// OutputBound is the output limit with its defaults.
func (f File) OutputBound() (bytes, lines int) {
	bytes, lines = f.OutputLimit.Bytes, f.OutputLimit.Lines
	if bytes == 0 {
		bytes = DefaultOutputBytes
	}
	if lines == 0 {
		lines = DefaultOutputLines
	}
	return bytes, lines
}

// SandboxEnabled is true unless the user turned the sandbox off.
func (f File) SandboxEnabled() bool { return f.Sandbox.Enabled == nil || *f.Sandbox.Enabled }

// AllowNetwork is true unless the user denied commands the network.
func (f File) AllowNetwork() bool { return f.Sandbox.AllowNetwork == nil || *f.Sandbox.AllowNetwork }
