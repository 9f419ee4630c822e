package wisps

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Volume is the shared folder where output_to files are written and
// input_from files read. Every path stays inside it, symlinks followed.
type Volume struct {
	Root string
}

// DefaultVolume is ~/.wisp/shared, or $WISP_HOME/shared.
func DefaultVolume(getenv func(string) string) (Volume, error) {
	if h := getenv("WISP_HOME"); h != "" {
		return Volume{Root: filepath.Join(h, "shared")}, nil
	}
	if h := getenv("HOME"); h != "" {
		return Volume{Root: filepath.Join(h, ".wisp", "shared")}, nil
	}
	return Volume{}, errors.New("locate the shared volume: neither WISP_HOME nor HOME is set")
}

// Path resolves a name inside the volume, refusing one that leaves it,
// through .. or through a symlink.
func (v Volume) Path(name string) (string, error) {
	if v.Root == "" {
		return "", errors.New("no shared volume is configured")
	}
	if err := confinedName(filepath.ToSlash(name)); err != nil {
		return "", err
	}
	root, err := filepath.Abs(v.Root)
	if err != nil {
		return "", fmt.Errorf("shared volume %s: %w", v.Root, err)
	}
	p := filepath.Join(root, filepath.FromSlash(name))
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		if os.IsNotExist(err) {
			return p, nil
		}
		return "", err
	}
	// The deepest existing ancestor must resolve inside the real root.
	probe := p
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
				return "", errOutside(name)
			}
			return p, nil
		}
		parent := filepath.Dir(probe)
		if parent == probe || len(parent) < len(root) {
			return p, nil
		}
		probe = parent
	}
}

// Write stores content at name, creating folders as needed.
func (v Volume) Write(name, content string) (string, error) {
	p, err := v.Path(name)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return p, nil
}

// Read returns the content of name.
func (v Volume) Read(name string) (string, error) {
	p, err := v.Path(name)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s from the shared volume: %w", name, err)
	}
	return string(b), nil
}
