// Package bounds holds what one line may cost the classifier: how deep
// it may nest before it is refused unparsed or unwalked, and how much of
// it a part or a reason may quote. A short line of thousands of nested
// substitutions would otherwise hold the gate for seconds and fill
// gigabytes with verdict text. It only measures; it never judges.
package bounds

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

const (
	// MaxParens bounds how deep parentheses may nest, counted before
	// the line is parsed: the parser's time grows with the square of
	// this nesting ("((((" is tried as arithmetic at every level).
	// Quotes are not looked at, so text in quotes counts too: the bound
	// only ever makes a line dangerous.
	MaxParens = 1000
	// MaxNodeDepth bounds the depth of the syntax tree (two to five
	// levels for each substitution or group). Walking and describing a
	// line costs about its depth times its length.
	MaxNodeDepth = 5000
	// MaxPartText and MaxProgramText bound the text of one part and its
	// program's name, which is the word itself when only known at run
	// time. The whole line is shown beside a part.
	MaxPartText    = 4096
	MaxProgramText = 256
)

// ErrTooDeep is the error of a line that nests beyond the bounds.
var ErrTooDeep = errors.New("nested too deep")

// TooDeepText says why src cannot be parsed, or "" when it may be.
func TooDeepText(src string) string {
	if len(src) <= MaxParens {
		return "" // too short to nest that deep: the common case costs nothing
	}
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
			deepest = max(deepest, depth)
		case ')':
			depth = max(depth-1, 0)
		}
	}
	if deepest > MaxParens {
		return fmt.Sprintf("parentheses nested more than %d deep: cannot be analysed", MaxParens)
	}
	return ""
}

// TooDeepTree says why a parsed line cannot be walked, or "" when it may
// be; src is its text.
func TooDeepTree(file *syntax.File, src string) string {
	if len(src) <= MaxNodeDepth/2 {
		return ""
	}
	depth, deep := 0, false
	syntax.Walk(file, func(n syntax.Node) bool {
		if n == nil {
			depth--
			return true
		}
		depth++
		deep = deep || depth > MaxNodeDepth
		return !deep
	})
	if deep {
		return fmt.Sprintf("constructs nested more than %d deep: cannot be analysed", MaxNodeDepth)
	}
	return ""
}

// ProgramName cuts a program's name to MaxProgramText bytes, keeping
// names apart with a hash of the whole: approvals are remembered by it.
func ProgramName(program string) string {
	if len(program) <= MaxProgramText {
		return program
	}
	sum := sha256.Sum256([]byte(program))
	return judge.Clip(program, MaxProgramText) + hex.EncodeToString(sum[:8])
}
