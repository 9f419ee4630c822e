package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filetext"
)

//go:embed edit.md
var editDescription string

var editSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"old_text":{"type":"string"},"new_text":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"old_text":{"type":"string"},"new_text":{"type":"string"}},"required":["old_text","new_text"]}}},"required":["path"]}`)

// editMaxBytes bounds the files edit will load; larger ones are better
// changed with a command.
const editMaxBytes = 16 << 20

type editPair struct {
	OldText *string `json:"old_text"`
	NewText *string `json:"new_text"`
}

type editArgs struct {
	Path    string     `json:"path"`
	OldText *string    `json:"old_text"`
	NewText *string    `json:"new_text"`
	Edits   []editPair `json:"edits"`
}

type editTool struct{}

var _ tool.Mutator = editTool{}

// Edit returns the edit tool: exact-match replacements with a diff back.
func Edit() tool.Tool { return editTool{} }

func (editTool) Spec() tool.Spec {
	return tool.Spec{Name: "edit", Description: strings.TrimSpace(editDescription), Schema: editSchema, Class: tool.Mutating}
}

// Describe states the limits edit enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (editTool) Describe() (limits []string, example string) {
	return []string{"each old text must match exactly once", "all edits apply or none", "returns a unified diff", "asks for approval"},
		"Rename the function parseFlags to parseArgs in internal/cli/flags.go."
}

// Subject names the file a call changes, how many edits it makes and
// each edit as -old/+new lines, for the gate to judge and show before
// anything is changed. It checks the arguments as Run does.
func (editTool) Subject(raw json.RawMessage) (tool.Subject, error) {
	var a editArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Subject{}, errors.New(msg)
	}
	pairs, msg := editPairs(a)
	if msg != "" {
		return tool.Subject{}, errors.New(msg)
	}
	s := tool.Subject{Paths: []string{a.Path}}
	if a.Edits != nil {
		// "1 edits" as the approval question has always said it.
		s.Summary = fmt.Sprintf("%d edits", len(a.Edits))
	}
	var lines []string
	for i, e := range pairs {
		if i > 0 {
			lines = append(lines, "…")
		}
		for _, l := range strings.Split(e.old, "\n") {
			lines = append(lines, "- "+l)
		}
		for _, l := range strings.Split(e.new, "\n") {
			lines = append(lines, "+ "+l)
		}
	}
	s.Preview = strings.Join(lines, "\n")
	return s, nil
}

// textEdit is one replacement located in the original text.
type textEdit struct {
	old, new string
	pos      int
}

func (e textEdit) end() int { return e.pos + len(e.old) }

func (editTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a editArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	pairs, msg := editPairs(a)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	space, err := filespace.Open(env)
	if err != nil {
		return tool.Result{}, err
	}
	defer space.Close()
	rel, msg := space.Resolve(a.Path)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	data, read, msg := readForEdit(space, rel, a.Path)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}

	// Match on a normalised text: no byte-order mark and "\n" line
	// endings; both are put back on writing (edit_endings.go).
	bom := bytes.HasPrefix(data, []byte("\xEF\xBB\xBF"))
	if bom {
		data = data[3:]
	}
	text, endings := normaliseEndings(string(data))
	for i := range pairs {
		pairs[i].old = strings.ReplaceAll(pairs[i].old, "\r\n", "\n")
		pairs[i].new = strings.ReplaceAll(pairs[i].new, "\r\n", "\n")
	}
	edits, msg := locateEdits(text, pairs, a.Path, a.Edits != nil)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	out, notes := endings.restore(text, edits)
	if out == string(data) {
		return tool.Errorf("the edit changes nothing: new_text equals old_text"), nil
	}
	if bom {
		out = "\xEF\xBB\xBF" + out
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if _, err := space.ReplaceFile(rel, []byte(out), &read); err != nil {
		return tool.Errorf("%s", filespace.ReplaceMessage(a.Path, err)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "edited %s (%s)\n%s", rel, plural(len(edits), "replacement", "replacements"), unifiedDiff(rel, text, edits))
	for _, n := range notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return tool.Result{Content: b.String()}, nil
}

// readForEdit reads the text file rel whole and says what it was, for the
// check just before writing. A file that changes while it is read is
// refused the same way as one that changes later.
func readForEdit(space *filespace.Space, rel, display string) ([]byte, filespace.State, string) {
	fi, err := space.Stat(rel)
	switch {
	case err != nil:
		return nil, filespace.State{}, statMessage(display, err)
	case fi.IsDir():
		return nil, filespace.State{}, fmt.Sprintf("%s is a folder, not a file", display)
	case !fi.Mode().IsRegular():
		return nil, filespace.State{}, fmt.Sprintf("%s is not a regular file", display)
	case fi.Size() > editMaxBytes:
		return nil, filespace.State{}, fmt.Sprintf("%s is %d bytes; edit handles files up to %d bytes", display, fi.Size(), editMaxBytes)
	}
	f, err := space.OpenRegular(rel)
	if err != nil {
		return nil, filespace.State{}, statMessage(display, err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, filespace.State{}, statMessage(display, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, editMaxBytes+1))
	if err != nil {
		return nil, filespace.State{}, statMessage(display, err)
	}
	read := filespace.StateOf(before).WithContent(data)
	if after, err := f.Stat(); err != nil || !read.SameFile(after) || int64(len(data)) != read.Size() {
		return nil, filespace.State{}, filespace.ReplaceMessage(display, filespace.ErrChanged)
	}
	if len(data) > editMaxBytes {
		return nil, filespace.State{}, fmt.Sprintf("%s is %d bytes; edit handles files up to %d bytes", display, len(data), editMaxBytes)
	}
	if reason := filetext.BinaryReason(data, len(data) <= filetext.BinarySample); reason != "" {
		return nil, filespace.State{}, fmt.Sprintf("%s looks like a binary file (%s); edit changes text only", display, reason)
	}
	return data, read, ""
}

// editPairs checks the two argument forms and returns the replacements.
func editPairs(a editArgs) ([]textEdit, string) {
	if a.Path == "" {
		return nil, "path is required"
	}
	single := a.OldText != nil || a.NewText != nil
	switch {
	case single && a.Edits != nil:
		return nil, "give either old_text/new_text or edits, not both"
	case single && a.OldText == nil:
		return nil, "old_text is required"
	case single && a.NewText == nil:
		return nil, "new_text is required (use \"\" to delete)"
	case single:
		if *a.OldText == "" {
			return nil, "old_text must not be empty (use write to create a file)"
		}
		return []textEdit{{old: *a.OldText, new: *a.NewText}}, ""
	case len(a.Edits) == 0:
		return nil, "give old_text and new_text, or a non-empty edits list"
	}
	out := make([]textEdit, 0, len(a.Edits))
	for i, p := range a.Edits {
		switch {
		case p.OldText == nil:
			return nil, fmt.Sprintf("edits[%d].old_text is required", i)
		case p.NewText == nil:
			return nil, fmt.Sprintf("edits[%d].new_text is required (use \"\" to delete)", i)
		case *p.OldText == "":
			return nil, fmt.Sprintf("edits[%d].old_text must not be empty", i)
		}
		out = append(out, textEdit{old: *p.OldText, new: *p.NewText})
	}
	return out, ""
}

// locateEdits finds each replacement's single match in text and returns
// them in text order, or a message naming every one that failed.
func locateEdits(text string, edits []textEdit, name string, multi bool) ([]textEdit, string) {
	var problems []string
	label := func(i int) string {
		if multi {
			return fmt.Sprintf("edits[%d].old_text", i)
		}
		return "old_text"
	}
	for i := range edits {
		old := edits[i].old
		first := strings.Index(text, old)
		if first < 0 {
			problems = append(problems, fmt.Sprintf("%s not found in %s. %s", label(i), name, nearestLines(text, old)))
			continue
		}
		lines := []int{lineAt(text, first)}
		for p := first + 1; ; {
			j := strings.Index(text[p:], old)
			if j < 0 {
				break
			}
			lines = append(lines, lineAt(text, p+j))
			p += j + 1
		}
		if len(lines) > 1 {
			problems = append(problems, fmt.Sprintf("%s matches %d times in %s (lines %s); add surrounding lines so it matches exactly once",
				label(i), len(lines), name, joinInts(lines, 10)))
			continue
		}
		edits[i].pos = first
	}
	if len(problems) > 0 {
		return nil, strings.Join(problems, "\n")
	}
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return edits[order[x]].pos < edits[order[y]].pos })
	sorted := make([]textEdit, len(edits))
	for k, i := range order {
		sorted[k] = edits[i]
		if k > 0 && sorted[k-1].end() > sorted[k].pos {
			return nil, fmt.Sprintf("edits[%d] and edits[%d] overlap; merge them into one", order[k-1], i)
		}
	}
	return sorted, ""
}

// lineAt returns the 1-based line number of byte offset p.
func lineAt(text string, p int) int { return strings.Count(text[:p], "\n") + 1 }

func joinInts(ns []int, max int) string {
	var parts []string
	for i, n := range ns {
		if i == max {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprint(n))
	}
	return strings.Join(parts, ", ")
}

// Nearest-match search for a failed old_text: every window of the file
// as tall as old_text is scored line by line (1 for lines equal once
// trimmed, else the Dice coefficient of their byte bigrams) and the best
// window is shown, so the model sees what the text really looks like.
const (
	nearestMaxLines  = 20      // old_text lines compared
	nearestMaxFile   = 100_000 // file lines scanned
	nearestLineBytes = 256     // bytes of a line compared
	nearestMinScore  = 0.4
	nearestMaxPairs  = 500_000 // line comparisons, to bound the time on big files
)

func nearestLines(text, old string) string {
	fileLines := strings.Split(text, "\n")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	if len(oldLines) > nearestMaxLines {
		oldLines = oldLines[:nearestMaxLines]
	}
	if len(fileLines) > nearestMaxFile {
		fileLines = fileLines[:nearestMaxFile]
	}
	m := len(oldLines)
	if len(fileLines) < m {
		m = len(fileLines)
		oldLines = oldLines[:m]
	}
	oldGrams := make([][]uint16, m)
	for j, l := range oldLines {
		oldGrams[j] = bigrams(l)
	}
	fileGrams := make([][]uint16, len(fileLines))
	for i, l := range fileLines {
		fileGrams[i] = bigrams(l)
	}
	// On big files only the first lines of old_text are scored.
	scored := max(1, min(m, nearestMaxPairs/max(1, len(fileLines))))
	best, bestScore := -1, 0.0
	for i := 0; i+m <= len(fileLines); i++ {
		score := 0.0
		for j := range scored {
			score += lineSimilarity(fileLines[i+j], oldLines[j], fileGrams[i+j], oldGrams[j])
		}
		if score /= float64(scored); score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 || bestScore < nearestMinScore {
		return "No similar lines found; read the file to see its current text."
	}
	var b strings.Builder
	whitespaceOnly := true
	for j := range m {
		if strings.TrimSpace(fileLines[best+j]) != strings.TrimSpace(oldLines[j]) {
			whitespaceOnly = false
		}
	}
	switch {
	case m == 1:
		fmt.Fprintf(&b, "The most similar line (%d, %.0f%% alike)", best+1, bestScore*100)
	default:
		fmt.Fprintf(&b, "The most similar lines (%d-%d, %.0f%% alike)", best+1, best+m, bestScore*100)
	}
	switch {
	case whitespaceOnly && m == 1:
		b.WriteString(" differs only in indentation or spaces")
	case whitespaceOnly:
		b.WriteString(" differ only in indentation or spaces")
	}
	b.WriteString(":\n")
	for j := range m {
		line, _ := filetext.CutRunes([]byte(fileLines[best+j]), 300)
		fmt.Fprintf(&b, "%6d\t%s\n", best+j+1, line)
	}
	b.WriteString("Copy old_text exactly as the file has it, without the line numbers.")
	return b.String()
}

// bigrams returns the sorted byte bigrams of a trimmed line.
func bigrams(line string) []uint16 {
	s := strings.TrimSpace(line)
	if len(s) > nearestLineBytes {
		s = s[:nearestLineBytes]
	}
	if len(s) < 2 {
		return nil
	}
	g := make([]uint16, len(s)-1)
	for i := range g {
		g[i] = uint16(s[i])<<8 | uint16(s[i+1])
	}
	slices.Sort(g)
	return g
}

func lineSimilarity(a, b string, ga, gb []uint16) float64 {
	ta, tb := strings.TrimSpace(a), strings.TrimSpace(b)
	if ta == tb {
		return 1
	}
	if len(ga)+len(gb) == 0 {
		return 0
	}
	common, i, j := 0, 0, 0
	for i < len(ga) && j < len(gb) {
		switch {
		case ga[i] == gb[j]:
			common++
			i++
			j++
		case ga[i] < gb[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(ga)+len(gb))
}

// unifiedDiff renders the edits as a unified diff with three lines of
// context. No diff algorithm (nor a library such as go-difflib, archived
// since 2016) is needed: where each replacement sits is known exactly, so
// each hunk is the lines a replacement touches, less the lines it leaves
// equal at either end.
func unifiedDiff(name, text string, edits []textEdit) string {
	const ctxLines = 3
	lines := splitKeep(text)
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l)
	}
	lineOf := func(p int) int { // index of the line holding byte p
		return sort.Search(len(lines), func(i int) bool { return offs[i+1] > p })
	}

	type region struct {
		oldStart, oldEnd int // line indexes into lines, end exclusive
		newLines         []string
	}
	var regions []region
	for i := 0; i < len(edits); {
		start := lineOf(edits[i].pos)
		end := lineOf(edits[i].end()-1) + 1
		j := i + 1
		var chunk string
		for {
			for j < len(edits) && edits[j].pos < offs[end] {
				end = max(end, lineOf(edits[j].end()-1)+1)
				j++
			}
			var b strings.Builder
			last := offs[start]
			for _, e := range edits[i:j] {
				b.WriteString(text[last:e.pos])
				b.WriteString(e.new)
				last = e.end()
			}
			b.WriteString(text[last:offs[end]])
			chunk = b.String()
			// A chunk that no longer ends in a newline has joined the next
			// line: take that line in as well.
			if chunk != "" && !strings.HasSuffix(chunk, "\n") && end < len(lines) {
				end++
				continue
			}
			break
		}
		oldL, newL := lines[start:end], splitKeep(chunk)
		for len(oldL) > 0 && len(newL) > 0 && oldL[0] == newL[0] {
			oldL, newL = oldL[1:], newL[1:]
			start++
		}
		for len(oldL) > 0 && len(newL) > 0 && oldL[len(oldL)-1] == newL[len(newL)-1] {
			oldL, newL = oldL[:len(oldL)-1], newL[:len(newL)-1]
			end--
		}
		if len(oldL) > 0 || len(newL) > 0 {
			regions = append(regions, region{oldStart: start, oldEnd: end, newLines: newL})
		}
		i = j
	}

	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	delta := 0 // new line index minus old line index before the current region
	for r := 0; r < len(regions); {
		// Gather regions whose context windows touch into one hunk.
		q := r + 1
		for q < len(regions) && regions[q].oldStart-regions[q-1].oldEnd <= 2*ctxLines {
			q++
		}
		hs := max(regions[r].oldStart-ctxLines, 0)
		he := min(regions[q-1].oldEnd+ctxLines, len(lines))
		var body strings.Builder
		oldCount, newCount := 0, 0
		pos := hs
		hunkDelta := delta
		for _, rg := range regions[r:q] {
			for ; pos < rg.oldStart; pos++ {
				writeDiffLine(&body, ' ', lines[pos])
				oldCount++
				newCount++
			}
			for ; pos < rg.oldEnd; pos++ {
				writeDiffLine(&body, '-', lines[pos])
				oldCount++
			}
			for _, l := range rg.newLines {
				writeDiffLine(&body, '+', l)
				newCount++
			}
			delta += len(rg.newLines) - (rg.oldEnd - rg.oldStart)
		}
		for ; pos < he; pos++ {
			writeDiffLine(&body, ' ', lines[pos])
			oldCount++
			newCount++
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(hs, oldCount), hunkRange(hs+hunkDelta, newCount))
		b.WriteString(body.String())
		r = q
	}
	return b.String()
}

// hunkRange formats a unified diff range; an empty range names the line
// before it, as diff -u does.
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

func writeDiffLine(b *strings.Builder, mark byte, line string) {
	b.WriteByte(mark)
	if strings.HasSuffix(line, "\n") {
		b.WriteString(line)
		return
	}
	b.WriteString(line)
	b.WriteString("\n\\ No newline at end of file\n")
}

// splitKeep splits text into lines that keep their "\n".
func splitKeep(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
