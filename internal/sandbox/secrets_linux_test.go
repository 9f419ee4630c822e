//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// secretMark is in every fake secret and in the test process's own
// environment, so that any leak shows in a command's output.
const secretMark = "wisp-secret-7c1f"

// TestAutoRunSecrets reads each secret location, spelled every way the
// classifier may miss, under the auto-run profile: nothing of it may
// come out. The control runs each line unsandboxed, where it must.
func TestAutoRunSecrets(t *testing.T) {
	w := autoRunWorld(t)
	pid := strconv.Itoa(holder(t))
	for rel, text := range map[string]string{
		".ssh/id_rsa":            "-----BEGIN KEY " + secretMark,
		".aws/credentials":       "aws_secret_access_key=" + secretMark,
		".bash_history":          "export TOKEN=" + secretMark,
		".config/gh/hosts.yml":   "oauth_token: " + secretMark,
		".config/tool/auth.json": `{"token":"` + secretMark + `"}`,
	} {
		p := filepath.Join(w.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, text)
	}
	writeFile(t, filepath.Join(w.wispHome, "config.json"), `{"apiKey":"`+secretMark+`"}`)
	if err := os.Symlink(filepath.Join(w.home, ".ssh", "id_rsa"), filepath.Join(w.ws, "key-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.home, filepath.Join(w.ws, "home-link")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(w.ws, filepath.Join(w.home, ".aws", "credentials"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		line string
		// unconfined: the control cannot run outside the sandbox either
		// (it names a process only the sandbox has).
		noControl bool
	}{
		{name: "ssh key", line: "cat ~/.ssh/id_rsa"},
		{name: "aws credentials through a variable", line: `f=credentials; cat "$HOME/.aws/$f"`},
		{name: "shell history", line: "cat $HOME/.bash_history"},
		{name: "gh token", line: "cat ~/.config/gh/hosts.yml"},
		{name: "application credentials by glob", line: "cat ~/.config/*/auth*"},
		{name: "glob over the key folder", line: "cat ~/.ss*/id_*"},
		{name: "dot-dot from the workspace", line: "cat " + rel},
		{name: "symlink in the workspace", line: "cat key-link"},
		{name: "symlinked home folder", line: "cat home-link/.bash_history"},
		{name: "substitution", line: `cat "$(echo ~/.ssh)/id_rsa"`},
		{name: "grep through the home folder", line: "grep -r " + secretMark + " ~ 2>/dev/null"},
		{name: "wisp home", line: "cat " + w.wispHome + "/config.json"},
		{name: "a wisp's environment through /proc", line: "cat /proc/" + pid + "/environ"},
		{name: "every environment in /proc", line: "cat /proc/*/environ | tr '\\0' '\\n'"},
		{name: "a wisp's command line", line: "cat /proc/" + pid + "/cmdline"},
		{name: "the key through /proc/1/root", line: "cat /proc/1/root" + w.home + "/.ssh/id_rsa", noControl: true},
		{name: "the key through /proc/self/root", line: "cat /proc/self/root" + w.home + "/.ssh/id_rsa"},
		{name: "ps shows no outside process", line: "ps -eww e -o args", noControl: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := w.cfg
			cfg.AutoRun = true
			r := run(t, cfg, tc.line)
			if strings.Contains(r.stdout+r.stderr, secretMark) {
				t.Errorf("auto-run read a secret (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
			}
			if tc.name == "ps shows no outside process" && outsideProcess(r.stdout) {
				t.Errorf("ps shows processes outside the command:\n%s", r.stdout)
			}
			if tc.noControl {
				return
			}
			ctl := w.cfg
			ctl.Enabled = false
			if r := run(t, ctl, tc.line); !strings.Contains(r.stdout, secretMark) {
				t.Errorf("control: unconfined, the line did not read the secret, so the test proves nothing (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}

	t.Run("approved commands still read them", func(t *testing.T) {
		if r := run(t, w.cfg, "cat ~/.ssh/id_rsa"); !strings.Contains(r.stdout, secretMark) {
			t.Errorf("an approved command lost the home folder (exit %d): %s", r.code, r.stderr)
		}
	})
	t.Run("workspace stays readable, only the temp folder writable", func(t *testing.T) {
		writeFile(t, filepath.Join(w.ws, "f"), "ok\n")
		cfg := w.cfg
		cfg.AutoRun = true
		if r := run(t, cfg, `cat f && echo x > "$TMPDIR/t" && cat "$TMPDIR/t"`); r.code != 0 || r.stdout != "ok\nx\n" {
			t.Errorf("exit %d: %q %s", r.code, r.stdout, r.stderr)
		}
		for _, line := range []string{"echo x > g", "mkdir .husky", "touch new", "echo x >> f", "rm f", "mv f g", "ln -s f g"} {
			if r := run(t, cfg, line); r.code == 0 {
				t.Errorf("%s: an auto-run command changed the workspace", line)
			}
		}
		if r := run(t, w.cfg, "echo x > g && rm g"); r.code != 0 {
			t.Errorf("control: an approved command cannot write the workspace: %s", r.stderr)
		}
	})
}

// holder starts a process that stands for wisp: its environment and its
// command line hold the secret mark. It ends with the test.
func holder(t *testing.T) int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Args = []string{"holder-" + secretMark}
	cmd.Env = append(os.Environ(), holdEnv+"=1", "ANTHROPIC_API_KEY="+secretMark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd.Process.Pid
}

// outsideProcess reports whether ps output names the test binary other
// than as the namespace's own init, which runs under the helper's name.
func outsideProcess(ps string) bool {
	for _, l := range strings.Split(ps, "\n") {
		if strings.Contains(l, "sandbox.test") && !strings.Contains(l, HelperArg+" --init") {
			return true
		}
	}
	return false
}
