package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// Limits of the Agent Skills format.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
	// maxFrontMatter bounds the YAML handed to the parser.
	maxFrontMatter = 16 << 10
)

// FrontMatter is what wisp reads of a SKILL.md header. Other keys
// (license, metadata, allowed-tools, ...) are allowed and ignored.
type FrontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// ParseFrontMatter splits a SKILL.md into its YAML front matter, between
// a first line "---" and the next line "---" (or "..."), and the body
// after it. It checks the shape only; Validate checks the values.
func ParseFrontMatter(data []byte) (FrontMatter, string, error) {
	var fm FrontMatter
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return fm, "", errors.New("SKILL.md does not start with a --- line opening its front matter")
	}
	var block []byte
	closed := false
	for pos := 0; pos < len(rest); {
		line, _, _ := bytes.Cut(rest[pos:], []byte("\n"))
		end := pos + len(line) + 1
		if t := string(bytes.TrimRight(line, " \t\r")); t == "---" || t == "..." {
			block, rest, closed = rest[:pos], rest[min(end, len(rest)):], true
			break
		}
		if pos > maxFrontMatter {
			break
		}
		pos = end
	}
	switch {
	case !closed && len(rest) > maxFrontMatter:
		return fm, "", fmt.Errorf("front matter is not closed within %d KiB", maxFrontMatter>>10)
	case !closed:
		return fm, "", errors.New("front matter is not closed by a --- line")
	case len(block) > maxFrontMatter:
		return fm, "", fmt.Errorf("front matter is over %d KiB", maxFrontMatter>>10)
	case len(bytes.TrimSpace(block)) == 0:
		return fm, "", errors.New("front matter is empty")
	}
	if err := yaml.Unmarshal(block, &fm); err != nil {
		return FrontMatter{}, "", fmt.Errorf("front matter: %s", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	fm.Description = strings.TrimSpace(fm.Description)
	body := strings.TrimLeft(string(rest), "\r\n")
	return fm, body, nil
}

// Validate checks a front matter against the format: a name of lowercase
// letters, digits and single hyphens inside (at most 64), equal to the
// skill's folder name, and a description of at most 1024 characters.
func (fm FrontMatter) Validate(folder string) error {
	if err := validName(fm.Name); err != nil {
		return err
	}
	switch n := utf8.RuneCountInString(fm.Description); {
	case fm.Name != folder:
		return fmt.Errorf("name %q differs from the folder name %q", fm.Name, folder)
	case n == 0:
		return errors.New("description is missing")
	case n > MaxDescriptionLen:
		return fmt.Errorf("description is %d characters, over %d", n, MaxDescriptionLen)
	}
	return nil
}

func validName(name string) error {
	switch {
	case name == "":
		return errors.New("name is missing")
	case len(name) > MaxNameLen:
		return fmt.Errorf("name is %d characters, over %d", len(name), MaxNameLen)
	case name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--"):
		return fmt.Errorf("name %q starts or ends with a hyphen or has two in a row", name)
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return fmt.Errorf("name %q may hold only lowercase letters, digits and hyphens", name)
		}
	}
	return nil
}
