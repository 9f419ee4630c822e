package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// namePrefix starts every MCP tool's name, so that none can take a
// built-in's.
const namePrefix = "mcp__"

// serverPartLen bounds the server's part of a name, so that every server
// leaves its tools at least 64-5-2-24 = 33 characters.
const serverPartLen = 24

// hashLen is how many hex digits of SHA-256 a hashed part carries.
const hashLen = 10

var (
	// cleanPart is a part kept as it is: the providers' characters, with
	// single underscores only between other characters, so that "__"
	// marks where the server's part ends.
	cleanPart = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)
	// hashedTail is the end of a hashed part. A name that ends so is
	// hashed itself, so a kept name never equals a hashed one.
	hashedTail = regexp.MustCompile(`_h[0-9a-f]{10}$`)
	notAllowed = regexp.MustCompile(`[^A-Za-z0-9-]+`)
)

// ServerPart is a server's part of its tools' names: the name itself when
// it is clean and short, else its letters and a hash of the whole name.
// Distinct server names give distinct parts, and no part holds "__".
func ServerPart(server string) string { return part(server, serverPartLen) }

// ToolName is the name the model sees for a server's tool:
// mcp__<server>__<tool>, at most 64 characters of [A-Za-z0-9_-].
// Distinct (server, tool) pairs give distinct names: the server's part
// never holds "__" and ends the first "__" after the prefix, and within
// a server each tool's part is the tool's name or a hash of it.
func ToolName(server, tool string) string {
	s := ServerPart(server)
	return namePrefix + s + "__" + part(tool, MaxNameLen-len(namePrefix)-len(s)-2)
}

// part keeps name when it is clean, short enough and cannot be mistaken
// for a hashed part; else it is the name's allowed characters, cut, then
// "_h" and ten hex digits of the name's SHA-256.
func part(name string, limit int) string {
	if len(name) <= limit && cleanPart.MatchString(name) && !hashedTail.MatchString(name) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "_h" + hex.EncodeToString(sum[:])[:hashLen]
	keep := notAllowed.ReplaceAllString(strings.ReplaceAll(name, "_", "-"), "-")
	keep = strings.Join(strings.FieldsFunc(keep, func(r rune) bool { return r == '-' }), "-")
	if n := limit - len(tail); len(keep) > n {
		keep = strings.TrimRight(keep[:max(n, 0)], "-")
	}
	if keep == "" {
		keep = "x"
	}
	return keep + tail
}
