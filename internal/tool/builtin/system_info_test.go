package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/sysinfo"
)

func TestSystemInfoTopics(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("system_info reads /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	tests := []struct {
		topic string
		want  []string
	}{
		{"os", []string{"kernel: Linux ", "architecture: "}},
		{"cpu", []string{"model: ", "cpus: ", "load average: "}},
		{"memory", []string{"total: ", "available: ", "swap: "}},
		{"disk", []string{"MOUNT", "AVAIL", "(workspace"}},
		{"processes", []string{"processes; the ", "PID", "RSS"}},
		{"ports", []string{"PORT", "ADDRESS"}},
	}
	env := &tool.Env{Workdir: t.TempDir()}
	for _, tc := range tests {
		t.Run(tc.topic, func(t *testing.T) {
			res, err := SystemInfo().Run(context.Background(), env, json.RawMessage(`{"topic":"`+tc.topic+`"}`))
			if err != nil || res.IsError {
				t.Fatalf("%+v %v", res, err)
			}
			lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
			if len(lines) > sysinfo.MaxRows || len(res.Content) > sysinfo.MaxBytes {
				t.Fatalf("%d rows, %d bytes:\n%s", len(lines), len(res.Content), res.Content)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("lacks %q:\n%s", w, res.Content)
				}
			}
			if tc.topic == "ports" && !strings.Contains(res.Content, "more)") {
				want := fmt.Sprintf("%d  127.0.0.1", port)
				if !strings.Contains(res.Content, want) || !strings.Contains(res.Content, "(pid ") {
					t.Errorf("our listener %d is missing:\n%s", port, res.Content)
				}
			}
		})
	}
}

func TestSystemInfoArgs(t *testing.T) {
	tests := []struct {
		name, args, err string
	}{
		{"missing topic", `{}`, "topic is required"},
		{"unknown topic", `{"topic":"gpu"}`, `unknown topic "gpu"`},
		{"unknown field", `{"topic":"os","verbose":true}`, `unknown field "verbose"`},
		{"wrong type", `{"topic":1}`, "system_info arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := SystemInfo().Run(context.Background(), &tool.Env{}, json.RawMessage(tc.args))
			if err != nil || !res.IsError || !strings.Contains(res.Content, tc.err) {
				t.Fatalf("got %+v %v, want error %q", res, err, tc.err)
			}
		})
	}
}
