package builtin

import (
	"fmt"
	"strings"
)

// Line endings in edit. A file is matched on a copy whose line endings
// are all "\n", so old_text matches whichever ending the model copied;
// writing it back, each line the edit did not touch gets its own ending
// again, and each newline the edit writes takes the ending most common
// around it (the lines it replaces and the line it ends on). A file that
// mixes "\r\n" and "\n" keeps its mix line by line.

// lineEndings says, for each "\n" of a normalised text in order, whether
// the file had "\r\n" there.
type lineEndings struct {
	crlf  []bool
	count int // how many are "\r\n"
}

// normaliseEndings returns text with every "\r\n" turned into "\n", and
// the endings it had.
func normaliseEndings(text string) (string, lineEndings) {
	var le lineEndings
	if !strings.Contains(text, "\r\n") {
		le.crlf = make([]bool, strings.Count(text, "\n"))
		return text, le
	}
	var b strings.Builder
	b.Grow(len(text))
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			b.WriteString(text)
			return b.String(), le
		}
		line := text[:i]
		crlf := strings.HasSuffix(line, "\r")
		if crlf {
			line = line[:len(line)-1]
			le.count++
		}
		b.WriteString(line)
		b.WriteByte('\n')
		le.crlf = append(le.crlf, crlf)
		text = text[i+1:]
	}
}

// dominantCRLF reports whether "\r\n" is the file's usual ending.
func (le lineEndings) dominantCRLF() bool {
	return le.count > 0 && le.count*2 >= len(le.crlf)
}

// restore writes the edited text with line endings put back, and returns
// a note for each edit whose new lines end differently from the lines it
// replaced.
func (le lineEndings) restore(text string, edits []textEdit) (string, []string) {
	var b strings.Builder
	b.Grow(len(text) + le.count + 64)
	var notes []string
	k, last := 0, 0 // k: newlines of text already written
	for _, e := range edits {
		k = le.copyOwn(&b, text[last:e.pos], k)
		n := strings.Count(e.old, "\n")
		crlf := le.chooseCRLF(k, n)
		writeEnding(&b, e.new, crlf)
		if note := le.changeNote(k, n, crlf, strings.Contains(e.new, "\n")); note != "" {
			notes = append(notes, note)
		}
		k += n
		last = e.end()
	}
	le.copyOwn(&b, text[last:], k)
	return b.String(), notes
}

// copyOwn writes s, whose first newline is newline k of the text, with
// each newline's own ending, and returns the index after its last.
func (le lineEndings) copyOwn(b *strings.Builder, s string, k int) int {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return k
		}
		b.WriteString(s[:i])
		if k < len(le.crlf) && le.crlf[k] {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
		s = s[i+1:]
		k++
	}
}

func writeEnding(b *strings.Builder, s string, crlf bool) {
	if crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	b.WriteString(s)
}

// chooseCRLF picks the ending for the newlines an edit writes: the one
// most common among the n newlines it replaces (from newline k on) and
// the newline that ends its last line. A tie goes to the file's usual
// ending; an edit on a last line without a newline follows the line
// before it.
func (le lineEndings) chooseCRLF(k, n int) bool {
	crlf, lf := 0, 0
	for i := k; i <= k+n && i < len(le.crlf); i++ {
		if le.crlf[i] {
			crlf++
		} else {
			lf++
		}
	}
	switch {
	case crlf > lf:
		return true
	case lf > crlf:
		return false
	case crlf == 0 && k > 0 && k <= len(le.crlf):
		return le.crlf[k-1]
	}
	return le.dominantCRLF()
}

// changeNote words a change of line endings: the edit writes newlines
// with one ending where some of the n lines it replaced (from line k+1)
// had the other.
func (le lineEndings) changeNote(k, n int, crlf, writesNewlines bool) string {
	if !writesNewlines || n == 0 {
		return ""
	}
	had := 0
	for i := k; i < k+n && i < len(le.crlf); i++ {
		if le.crlf[i] {
			had++
		}
	}
	other := n - had // lines that had "\n"
	name, otherName := "CRLF", "LF"
	if !crlf {
		name, otherName, other = "LF", "CRLF", had
	}
	if other == 0 {
		return ""
	}
	lines := fmt.Sprintf("line %d", k+1)
	if n > 1 {
		lines = fmt.Sprintf("lines %d-%d", k+1, k+n)
	}
	return fmt.Sprintf("line endings: %s had %s; the new lines all end in %s", lines, endingCounts(n-other, name, other, otherName), name)
}

func endingCounts(same int, name string, other int, otherName string) string {
	switch {
	case same == 0:
		return fmt.Sprintf("%d %s", other, otherName)
	default:
		return fmt.Sprintf("%d %s and %d %s", same, name, other, otherName)
	}
}
