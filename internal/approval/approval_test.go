package approval

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/shell"
)

// The test binary doubles as a second wisp process for the file-lock
// test: with helperEnv set it remembers approvals and exits.
const helperEnv = "WISP_APPROVAL_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helperMain())
	}
	// Nothing here should touch a home folder; make sure it cannot.
	home, err := os.MkdirTemp("", "approval-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	os.Setenv("WISP_HOME", filepath.Join(home, ".wisp"))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// helperMain waits for the start file, then remembers HELPER_N always
// approvals named HELPER_PREFIX-i.
func helperMain() int {
	path, dir, start := os.Getenv("HELPER_FILE"), os.Getenv("HELPER_DIR"), os.Getenv("HELPER_START")
	n, _ := strconv.Atoi(os.Getenv("HELPER_N"))
	s, err := Open(path, dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "start file never appeared")
			return 1
		}
	}
	for i := range n {
		scope := ScopeAlways
		if i%2 == 1 {
			scope = ScopeProject
		}
		d, err := s.Remember(fmt.Sprintf("%s-%d", os.Getenv("HELPER_PREFIX"), i), shell.Moderate, scope)
		if err != nil || !d.Persisted {
			fmt.Fprintln(os.Stderr, "remember:", err)
			return 1
		}
	}
	return 0
}

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		name, in string
		want     Threshold
		wantErr  bool
	}{
		{"empty is the default", "", ThresholdModerate, false},
		{"safe", "safe", ThresholdSafe, false},
		{"moderate", "moderate", ThresholdModerate, false},
		{"dangerous", "dangerous", ThresholdDangerous, false},
		{"never", "never", ThresholdNever, false},
		{"unknown", "sometimes", 0, true},
		{"case matters", "Safe", 0, true},
		{"no padding", " never", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseThreshold(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "approval.threshold") {
					t.Fatalf("ParseThreshold(%q) error = %v, want one naming approval.threshold", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseThreshold(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if tt.in != "" && got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestThresholdUnmarshalText(t *testing.T) {
	var th Threshold
	if err := th.UnmarshalText([]byte("never")); err != nil || th != ThresholdNever {
		t.Fatalf("UnmarshalText(never) = %v, %v", th, err)
	}
	if b, err := ThresholdDangerous.MarshalText(); err != nil || string(b) != "dangerous" {
		t.Fatalf("MarshalText = %q, %v", b, err)
	}
	if _, err := Threshold(9).MarshalText(); err == nil {
		t.Fatal("MarshalText of an unknown threshold succeeded")
	}
}

func TestThresholdAsks(t *testing.T) {
	bogus := shell.Level(7)
	tests := []struct {
		name  string
		th    Threshold
		level shell.Level
		want  bool
	}{
		{"safe asks safe", ThresholdSafe, shell.Safe, true},
		{"safe asks moderate", ThresholdSafe, shell.Moderate, true},
		{"safe asks dangerous", ThresholdSafe, shell.Dangerous, true},
		{"moderate skips safe", ThresholdModerate, shell.Safe, false},
		{"moderate asks moderate", ThresholdModerate, shell.Moderate, true},
		{"moderate asks dangerous", ThresholdModerate, shell.Dangerous, true},
		{"dangerous skips safe", ThresholdDangerous, shell.Safe, false},
		{"dangerous skips moderate", ThresholdDangerous, shell.Moderate, false},
		{"dangerous asks dangerous", ThresholdDangerous, shell.Dangerous, true},
		{"never skips dangerous", ThresholdNever, shell.Dangerous, false},
		{"never skips safe", ThresholdNever, shell.Safe, false},
		{"unknown level asks", ThresholdDangerous, bogus, true},
		{"unknown threshold asks", Threshold(42), shell.Safe, true},
		{"zero value asks everything", Threshold(0), shell.Safe, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.th.Asks(tt.level); got != tt.want {
				t.Errorf("%v.Asks(%v) = %v, want %v", tt.th, tt.level, got, tt.want)
			}
		})
	}
}

func TestPattern(t *testing.T) {
	tests := []struct {
		name, program, verb, want string
	}{
		{"git verb", "git", "push", "git push"},
		{"go verb", "go", "test", "go test"},
		{"npm verb", "npm", "install", "npm install"},
		{"make first target", "make", "build", "make build"},
		{"make without target", "make", "", "make"},
		{"uv two-word verb", "uv", "pip install", "uv pip install"},
		{"verb spaces normalised", "uv", " pip   install ", "uv pip install"},
		{"rm has no verb", "rm", "", "rm"},
		{"verb ignored for others", "python3", "script.py", "python3"},
		{"program by path", "./run.sh", "", "./run.sh"},
		{"empty program", "", "push", ""},
		{"kubectl", "kubectl", "apply", "kubectl apply"},
		{"apt-get", "apt-get", "install", "apt-get install"},
		{"gh", "gh", "pr", "gh pr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Pattern(tt.program, tt.verb); got != tt.want {
				t.Errorf("Pattern(%q, %q) = %q, want %q", tt.program, tt.verb, got, tt.want)
			}
		})
	}
	if got := ToolPattern("write"); got != "tool:write" {
		t.Errorf("ToolPattern(write) = %q", got)
	}
	if got := ToolPattern(" "); got != "" {
		t.Errorf("ToolPattern(blank) = %q, want empty", got)
	}
}

// TestPatternFromClassifier checks the patterns real lines give, through
// the classifier the caller uses.
func TestPatternFromClassifier(t *testing.T) {
	tests := []struct{ line, want string }{
		{"git status", "git status"},
		{"/usr/bin/git -C sub push --force", "git push"},
		{"env A=1 git push", "git push"},
		{"make -j4 test", "make test"},
		{"go test ./...", "go test"},
		{"rm -rf build", "rm"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			v := shell.Classify(tt.line)
			if len(v.Parts) != 1 {
				t.Fatalf("Classify(%q) gave %d parts", tt.line, len(v.Parts))
			}
			p := v.Parts[0]
			if got := Pattern(p.Program, p.Verb); got != tt.want {
				t.Errorf("Pattern for %q = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}
