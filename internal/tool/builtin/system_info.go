package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/sysinfo"
)

// system_info's answers come from package sysinfo, which reads /proc,
// /sys and /etc itself.

//go:embed system_info.md
var systemInfoDescription string

const systemInfoSchema = `{"type":"object","properties":{` +
	`"topic":{"type":"string","enum":["os","cpu","memory","disk","processes","ports"]}` +
	`},"required":["topic"],"additionalProperties":false}`

type systemInfo struct{}

// SystemInfo returns the system_info tool.
func SystemInfo() tool.Tool { return systemInfo{} }

func (systemInfo) Spec() tool.Spec {
	return tool.Spec{
		Name:        "system_info",
		Description: strings.TrimSpace(systemInfoDescription),
		Schema:      json.RawMessage(systemInfoSchema),
		Class:       tool.Read,
	}
}

// Describe states the limits system_info enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (systemInfo) Describe() (limits []string, example string) {
	return []string{"topics os, cpu, memory, disk, processes, ports", "at most 15 rows and 4,096 bytes"},
		"How much free disk space is there?"
}

func (systemInfo) Run(_ context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	var a struct {
		Topic string `json:"topic"`
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return tool.Errorf("system_info arguments: %v", strings.TrimPrefix(err.Error(), "json: ")), nil
	}
	switch a.Topic {
	case "os", "cpu", "memory", "disk", "processes", "ports":
	case "":
		return tool.Errorf("system_info: topic is required: os, cpu, memory, disk, processes or ports"), nil
	default:
		return tool.Errorf("system_info: unknown topic %q; use os, cpu, memory, disk, processes or ports", a.Topic), nil
	}
	if env == nil {
		env = &tool.Env{}
	}
	rows, err := sysinfo.Collect(a.Topic, env)
	if err != nil {
		return tool.Errorf("system_info %s: %v", a.Topic, err), nil
	}
	return tool.Result{Content: sysinfo.Fit(rows)}, nil
}
