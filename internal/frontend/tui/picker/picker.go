// Package picker finds the files the full screen's @ picker offers: the
// workspace's files, walked once with .gitignore honoured, ranked by a
// fuzzy match of what is typed. It only reads the workspace; it must
// never hold screen state or write a file.
package picker

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wisp-agent/wisp/internal/workspace"
)

// maxPickerFiles bounds the files the @ picker lists.
const maxPickerFiles = 20000

// Files lists the files under root, slash-separated and
// relative, leaving out what .gitignore files ignore and .git itself.
func Files(root string) []string {
	var files []string
	ignores := map[string]*workspace.Ignore{"": nil}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(files) >= maxPickerFiles {
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		parent := path.Dir(rel)
		if parent == "." {
			parent = ""
		}
		ig := ignores[parent]
		if rel != "" && (d.Name() == ".git" || ig.Match(rel, d.IsDir())) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if data, err := os.ReadFile(filepath.Join(p, ".gitignore")); err == nil {
				ig = ig.Add(rel, data)
			}
			ignores[rel] = ig
			return nil
		}
		files = append(files, rel)
		return nil
	})
	return files
}

// Rank ranks the files that hold query's characters in order, the
// best first: fewer gaps, matches in the file's name, shorter paths.
func Rank(files []string, query string, limit int) []string {
	type hit struct {
		path  string
		score int
	}
	q := strings.ToLower(query)
	var hits []hit
	for _, f := range files {
		if s, ok := fuzzyScore(strings.ToLower(f), q); ok {
			hits = append(hits, hit{f, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return len(hits[i].path) < len(hits[j].path)
	})
	var out []string
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].path)
	}
	return out
}

// fuzzyScore matches q as a subsequence of s.
func fuzzyScore(s, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	score, qi, last := 0, 0, -1
	base := strings.LastIndexByte(s, '/') + 1
	for i := 0; i < len(s) && qi < len(q); i++ {
		if s[i] != q[qi] {
			continue
		}
		switch {
		case i == last+1:
			score += 3
		case i == base || (i > 0 && strings.IndexByte("/._-", s[i-1]) >= 0):
			score += 2
		default:
			score++
		}
		if i >= base {
			score++
		}
		last = i
		qi++
	}
	return score, qi == len(q)
}
