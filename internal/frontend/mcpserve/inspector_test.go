package mcpserve

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/mcp/mcptest"
)

// inspectorOut is what the MCP inspector's CLI prints for a tools/call
// or a resources/read.
type inspectorOut struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	IsError  bool `json:"isError"`
	Contents []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"contents"`
}

// inspect runs the MCP inspector's CLI against `wisp mcp serve serve...`
// in the world's workspace, with the method's arguments.
func (w *world) inspect(t *testing.T, inspector string, serve []string, method ...string) inspectorOut {
	t.Helper()
	args := []string{"--cli", "-e", "WISP_HOME=" + filepath.Join(w.home(), ".wisp"), "-e", "WISP_PROVIDER=fake", "-e", "WISP_TRUST=0", w.bin, "mcp", "serve"}
	args = append(append(args, serve...), method...)
	cmd := exec.Command(inspector, args...)
	cmd.Dir, cmd.Env = w.work, w.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\n%s", method, err, stderr.String())
	}
	var got inspectorOut
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("inspector %v printed no JSON: %v\n%s", method, err, out)
	}
	return got
}

// TestInspectorCLI drives wisp mcp serve with a client wisp did not
// write, @modelcontextprotocol/inspector-cli (installed by .ci/run):
// it lists the tools, calls one, reads wisp://tools.md, gets a call the
// policy refuses even with --yes, and a call that needs approval, which
// this client cannot give (it does not take elicitation) unless wisp
// was started with --yes. Every call is audited with origin mcp.
func TestInspectorCLI(t *testing.T) {
	inspector := mcptest.NPMServer(t, "mcp-inspector-cli")
	w := newWorld(t)
	// inspector-cli 1.0.3 finds its own package.json through a path it
	// checks against the working folder: one must be found one folder up.
	if err := os.WriteFile(filepath.Join(filepath.Dir(w.work), "package.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.work, "note.txt"), []byte("INSPECTED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	md := exec.Command(w.bin, "tools", "--markdown")
	md.Dir, md.Env = w.work, w.env
	wantMD, err := md.Output()
	if err != nil {
		t.Fatal(err)
	}

	list := w.inspect(t, inspector, nil, "--method", "tools/list")
	var names []string
	for _, x := range list.Tools {
		names = append(names, x.Name)
	}
	if !strings.Contains(","+strings.Join(names, ",")+",", ",read,") || !strings.Contains(strings.Join(names, ","), "bash") {
		t.Errorf("tools/list: %v", names)
	}
	cases := []struct {
		name    string
		serve   []string
		method  []string
		isError bool
		want    string
		made    bool
	}{
		{"a read", nil, []string{"--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=note.txt"}, false, "INSPECTED", false},
		{"refused by the policy even with --yes", []string{"--yes"}, []string{"--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=sudo touch made"}, true, "refused by policy rule privilege-escalation", false},
		{"approval this client cannot give", nil, []string{"--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=touch made"}, true, "only when started with --yes", false},
		{"approval given by --yes", []string{"--yes"}, []string{"--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=touch made"}, false, "exit_code: 0", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := w.inspect(t, inspector, c.serve, c.method...)
			if len(got.Content) != 1 || got.IsError != c.isError || !strings.Contains(got.Content[0].Text, c.want) {
				t.Fatalf("got %+v, want is_error %v and %q", got, c.isError, c.want)
			}
			if _, err := os.Stat(filepath.Join(w.work, "made")); (err == nil) != c.made {
				t.Fatalf("made exists: %v, want %v", err == nil, c.made)
			}
		})
	}
	res := w.inspect(t, inspector, nil, "--method", "resources/read", "--uri", ToolsMDURI)
	if len(res.Contents) != 1 || res.Contents[0].URI != ToolsMDURI || res.Contents[0].Text != string(wantMD) {
		t.Errorf("%s differs from wisp tools --markdown:\n%+v", ToolsMDURI, res.Contents)
	}
	logs, _ := filepath.Glob(filepath.Join(w.home(), ".wisp", "logs", "*"))
	var audited strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		audited.Write(data)
	}
	for _, tool := range []string{"read", "bash"} {
		if !strings.Contains(audited.String(), `"tool":"`+tool+`","class":`) || strings.Count(audited.String(), `"origin":"mcp"`) < 4 {
			t.Errorf("the served calls are not audited with origin mcp:\n%s", audited.String())
		}
	}
}
