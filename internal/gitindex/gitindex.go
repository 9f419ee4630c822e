// Package gitindex reads the one thing the gate needs from a git index
// file: the paths of its gitlinks (submodules), whose repositories git
// enters, and whose configuration it obeys, when the person next runs
// `git status` in the workspace.
//
// It is a reader of the on-disk format (versions 2 to 4, SHA-1 and
// SHA-256 object names), written here rather than taken from go-git:
// that library would bring a whole git implementation into the binary
// for some forty lines of parsing, and running git itself on the
// workspace's repository would read the configuration being guarded.
// It never runs anything and never writes.
package gitindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

const gitlinkMode = 0o160000

// Gitlinks returns the paths (slash-separated, relative to the work
// tree) of the index's gitlink entries. The object name's length is
// found by trying SHA-1, then SHA-256: only one of them makes every
// entry's recorded name length and padding agree.
func Gitlinks(data []byte) ([]string, error) {
	links, err := parse(data, 20)
	if err == nil {
		return links, nil
	}
	if links, err2 := parse(data, 32); err2 == nil {
		return links, nil
	}
	return nil, err
}

var errShort = errors.New("git index: cut short")

func parse(data []byte, hashLen int) ([]string, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("git index: no DIRC header")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("git index: version %d is not one wisp reads", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	pos := 12
	var prev []byte
	var links []string
	for i := uint32(0); i < count; i++ {
		start := pos
		fixed := 40 + hashLen + 2 // stat data, mode in it, object name, flags
		if pos+fixed > len(data) {
			return nil, errShort
		}
		mode := binary.BigEndian.Uint32(data[pos+24 : pos+28])
		flags := binary.BigEndian.Uint16(data[pos+40+hashLen:])
		pos += fixed
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			if version < 3 {
				return nil, errors.New("git index: extended flags in a version 2 index")
			}
			pos += 2
		}
		if pos >= len(data) {
			return nil, errShort
		}
		name, next, err := entryName(data, pos, start, version, prev)
		if err != nil {
			return nil, err
		}
		if n := int(flags & 0xfff); n < 0xfff && n != len(name) {
			return nil, errors.New("git index: entry name length does not match its flags")
		}
		if mode&0o170000 == gitlinkMode {
			links = append(links, string(name))
		}
		prev, pos = name, next
	}
	return links, nil
}

// entryName reads an entry's path at pos: NUL-terminated and padded to
// a multiple of eight bytes from the entry's start (versions 2 and 3),
// or prefix-compressed against the previous path (version 4).
func entryName(data []byte, pos, start int, version uint32, prev []byte) ([]byte, int, error) {
	if version == 4 {
		strip, n := binary.Uvarint(data[pos:])
		if n <= 0 || strip > uint64(len(prev)) {
			return nil, 0, errors.New("git index: bad path prefix")
		}
		pos += n
		end := bytes.IndexByte(data[pos:], 0)
		if end < 0 {
			return nil, 0, errShort
		}
		name := append(append([]byte(nil), prev[:len(prev)-int(strip)]...), data[pos:pos+end]...)
		return name, pos + end + 1, nil
	}
	end := bytes.IndexByte(data[pos:], 0)
	if end < 0 {
		return nil, 0, errShort
	}
	name := data[pos : pos+end]
	next := start + (pos+end-start+8)/8*8
	if next > len(data) || !allZero(data[pos+end:next]) {
		return nil, 0, errors.New("git index: bad entry padding")
	}
	return name, next, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
