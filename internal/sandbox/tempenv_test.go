package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTempEnv(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	warm := filepath.Join(base, "warm") // a home whose go build cache exists
	tmp := filepath.Join(base, "wisp-run-1", "tmp")
	ws := filepath.Join(base, "ws")
	for _, d := range []string{home, ws, filepath.Join(warm, ".cache", "go-build"), tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("WISP_HOME", filepath.Join(base, "wisphome"))
	for _, k := range []string{"XDG_CACHE_HOME", "GOMODCACHE", "GOPATH", "GOCACHE", "CARGO_HOME", "npm_config_cache"} {
		t.Setenv(k, "")
	}
	temps := []string{"TMPDIR=" + tmp, "GOTMPDIR=" + tmp, "TMP=" + tmp, "TEMP=" + tmp}
	ownCache := "GOCACHE=" + filepath.Join(tmp, "go-build")
	tests := []struct {
		name string
		cfg  Config
		home string   // HOME of wisp (the roots) and the command
		env  []string // the command's environment besides HOME
		want []string
	}{
		{name: "no temp folder", cfg: Config{Enabled: true}, home: home, want: nil},
		{name: "fresh home gets its own go cache", cfg: Config{Enabled: true, TempDir: tmp}, home: home, want: append(slices.Clone(temps), ownCache)},
		{name: "existing go cache is kept", cfg: Config{Enabled: true, TempDir: tmp}, home: warm, want: temps},
		{name: "GOCACHE that exists is kept", cfg: Config{Enabled: true, TempDir: tmp}, home: home,
			env: []string{"GOCACHE=" + filepath.Join(warm, ".cache", "go-build")}, want: temps},
		{name: "GOCACHE inside the wisp home is replaced", cfg: Config{Enabled: true, TempDir: tmp}, home: home,
			env: []string{"GOCACHE=" + filepath.Join(base, "wisphome", "go")}, want: append(slices.Clone(temps), ownCache)},
		{name: "GOCACHE off is left to go", cfg: Config{Enabled: true, TempDir: tmp}, home: home, env: []string{"GOCACHE=off"}, want: temps},
		{name: "XDG cache in the workspace is writable", cfg: Config{Enabled: true, TempDir: tmp, Workdir: ws}, home: home,
			env: []string{"XDG_CACHE_HOME=" + filepath.Join(ws, "xdg")}, want: temps},
		{name: "unsandboxed go makes its own cache", cfg: Config{TempDir: tmp}, home: home, want: temps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", tt.home)
			if g := lookup(tt.env, "GOCACHE"); g != "" {
				t.Setenv("GOCACHE", g)
			}
			env := append([]string{"HOME=" + tt.home}, tt.env...)
			if got := TempEnv(tt.cfg, env); !slices.Equal(got, tt.want) {
				t.Errorf("TempEnv = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWithEnv(t *testing.T) {
	tests := []struct {
		name           string
		env, set, want []string
	}{
		{"nothing to set", []string{"A=1"}, nil, []string{"A=1"}},
		{"replaces every earlier value", []string{"TMPDIR=/a", "B=2", "TMPDIR=/b"}, []string{"TMPDIR=/t"}, []string{"B=2", "TMPDIR=/t"}},
		{"adds a missing one", []string{"B=2"}, []string{"TMP=/t"}, []string{"B=2", "TMP=/t"}},
		{"a name that only shares a prefix stays", []string{"TMPDIRX=1"}, []string{"TMPDIR=/t"}, []string{"TMPDIRX=1", "TMPDIR=/t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withEnv(tt.env, tt.set); !slices.Equal(got, tt.want) {
				t.Errorf("withEnv = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkCommand shows what naming the temp folder adds to building a
// command (TempEnv works out the writable roots once more, in the parent).
func BenchmarkCommand(b *testing.B) {
	tmp := b.TempDir()
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"without TempDir", Config{Enabled: true, Workdir: tmp}},
		{"with TempDir", Config{Enabled: true, Workdir: tmp, TempDir: tmp}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_ = Command(bc.cfg, "/bin/true", "true", tmp)
			}
		})
	}
}
