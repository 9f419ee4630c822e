// Package workspace decides about paths in the workspace. Resolve is the
// single entry point every file tool goes through: it turns a path the
// model wrote into an absolute path with symlinks resolved, and refuses any
// path that would land outside the root or on a protected path. Ignore
// holds .gitignore rules, for tools that walk the tree.
//
// The package only decides; it never writes or lists files, reads nothing
// but symlinks and the existence of paths, and never widens what a caller
// may reach: a path it cannot resolve is an error, never a pass.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside is wrapped by errors for paths that resolve outside the root.
var ErrOutside = errors.New("path outside the workspace")

// ErrProtected is wrapped by errors for paths the Guard protects.
var ErrProtected = errors.New("protected path")

// PathError says why a path was refused. Its text is "<reason>: <path>",
// with the path as the caller wrote it, so it can go to the model as is.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Err.Error() + ": " + e.Path }
func (e *PathError) Unwrap() error { return e.Err }

// maxLinks bounds symlink hops while resolving a path that does not exist
// yet, as the kernel does (ELOOP), so a link cycle cannot spin forever.
const maxLinks = 40

// Guard confines paths to Root. Protected, when set, is asked about every
// resolved absolute path; true refuses it even if it does not exist yet.
type Guard struct {
	Root      string
	Protected func(abs string) bool
}

// Resolve resolves path against root with no protected paths; see
// Guard.Resolve.
func Resolve(root, path string) (string, error) {
	return Guard{Root: root}.Resolve(path)
}

// RealRoot returns the root as an absolute path with symlinks resolved.
// Every path Resolve returns lies at or under it.
func RealRoot(root string) (string, error) {
	if root == "" {
		return "", errors.New("workspace root is not set")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	return real, nil
}

// Resolve returns the absolute, symlink-free form of path. A relative path
// is taken relative to the root; ".." is cleaned lexically first. Symlinks
// are followed for the part of the path that exists; a path that does not
// exist yet is resolved through its deepest existing ancestor (a dangling
// symlink is followed to where its target would be). The result must be
// the root or lie under it, else the error wraps ErrOutside.
func (g Guard) Resolve(path string) (string, error) {
	root, err := RealRoot(g.Root)
	if err != nil {
		return "", err
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", &PathError{Path: path, Err: errors.New("invalid path (NUL byte)")}
	}
	var abs string
	if filepath.IsAbs(path) {
		abs = filepath.Clean(path)
	} else {
		abs = filepath.Join(root, path)
	}
	real, err := resolveLinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if !Within(root, real) {
		return "", &PathError{Path: path, Err: ErrOutside}
	}
	// Both the path as written and where it leads are checked, so neither
	// a protected name behind a symlink nor a symlink named like a
	// harmless file gets through.
	if g.Protected != nil && (g.Protected(abs) || g.Protected(real)) {
		return "", &PathError{Path: path, Err: ErrProtected}
	}
	return real, nil
}

// Within reports whether abs is root or lies under it. Both must be clean
// absolute paths.
func Within(root, abs string) bool {
	if abs == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(abs, prefix)
}

// resolveLinks resolves every symlink in the clean absolute path abs. The
// longest existing prefix goes through filepath.EvalSymlinks; the missing
// tail is appended as written, except that a dangling symlink on the way
// is followed by hand, since creating through it would land on its target.
func resolveLinks(abs string) (string, error) {
	for hops := 0; ; hops++ {
		if hops > maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		existing, tail := abs, ""
		for {
			real, err := filepath.EvalSymlinks(existing)
			if err == nil {
				return filepath.Join(real, tail), nil
			}
			if !missing(err) {
				return "", err
			}
			if fi, lerr := os.Lstat(existing); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				// A dangling link (or one into a missing folder): follow it.
				target, rerr := os.Readlink(existing)
				if rerr != nil {
					return "", rerr
				}
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(existing), target)
				}
				abs = filepath.Join(target, tail)
				break
			}
			parent := filepath.Dir(existing)
			if parent == existing {
				// Not even the filesystem root resolves; keep the path as is.
				return abs, nil
			}
			tail = filepath.Join(filepath.Base(existing), tail)
			existing = parent
		}
	}
}

// missing reports whether err means some component does not exist (or a
// file stands where a folder was expected), so the path may still be
// created or simply fail later with a clear error of its own.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
