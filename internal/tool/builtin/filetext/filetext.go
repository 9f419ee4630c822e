// Package filetext holds the checks the file tools and grep make on file
// contents: whether a file looks binary, cutting text on a rune boundary,
// and counting lines as an editor shows them.
//
// It works on bytes already read and must never open, read or write a
// file itself; file access goes through filespace.
package filetext

import (
	"bytes"
	"unicode/utf8"
)

// BinarySample is how much of a file the binary check looks at, as git
// and most grep tools do.
const BinarySample = 8 << 10

// BinaryReason says why data (the start of a file) looks binary, or ""
// for text: a NUL byte, or bytes that are not UTF-8. A rune cut off by
// the end of the sample does not count.
func BinaryReason(data []byte, whole bool) string {
	if len(data) > BinarySample {
		data, whole = data[:BinarySample], false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "it contains NUL bytes"
	}
	if !utf8.Valid(data) {
		if !whole {
			// Drop a rune cut in half at the end of the sample.
			for i := 1; i < utf8.UTFMax && i <= len(data); i++ {
				if utf8.RuneStart(data[len(data)-i]) {
					if utf8.Valid(data[:len(data)-i]) {
						return ""
					}
					break
				}
			}
		}
		return "it is not valid UTF-8"
	}
	return ""
}

// CutRunes shortens s to at most n runes on a rune boundary.
func CutRunes(s []byte, n int) ([]byte, bool) {
	if len(s) <= n {
		return s, false
	}
	count := 0
	for i := range string(s) {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}

// CountLines counts lines the way an editor shows them: a final line
// without a newline still counts.
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
