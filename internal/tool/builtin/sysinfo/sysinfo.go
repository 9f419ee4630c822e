// Package sysinfo answers the system_info tool's topics (os, cpu, memory,
// disk, processes, ports) by reading /proc, /sys and /etc itself rather
// than through a library such as gopsutil: six small answers need a few
// hundred lines, not a large cross-platform dependency.
//
// It only reads: it must never write, signal a process or open a socket,
// and every answer it gives is held to MaxRows lines of at most MaxBytes.
package sysinfo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Bounds of every system_info answer.
const (
	MaxRows  = 15
	MaxBytes = 4096
	// sysinfoMaxLine keeps 15 rows within MaxBytes.
	sysinfoMaxLine = MaxBytes/MaxRows - 1
)

// Fit holds an answer to its bounds: at most MaxRows lines
// of at most sysinfoMaxLine bytes each.
func Fit(rows []string) string {
	if len(rows) > MaxRows {
		rows = rows[:MaxRows]
	}
	var b strings.Builder
	for _, r := range rows {
		r = strings.TrimRight(strings.ToValidUTF8(r, "\uFFFD"), " ")
		if len(r) > sysinfoMaxLine {
			cut := sysinfoMaxLine - len("…")
			for cut > 0 && !utf8.RuneStart(r[cut]) {
				cut--
			}
			r = r[:cut] + "…"
		}
		b.WriteString(r)
		b.WriteByte('\n')
	}
	return b.String()
}

// sysinfoTable aligns rows of tab-separated cells. When there are more
// rows than room, the last shown row says how many were left out.
func sysinfoTable(header string, rows []string, room int) []string {
	if len(rows) > room {
		rows = append(rows[:room-1:room-1], fmt.Sprintf("(%d more)", len(rows)-room+1))
	}
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, header)
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	w.Flush()
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// sysinfoSize formats a byte count the way df -h and free -h do.
func sysinfoSize(n uint64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatUint(n, 10) + " B"
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + string("KMGTPE"[i]) + "iB"
}

// sysinfoDuration formats an uptime as days, hours and minutes.
func sysinfoDuration(seconds float64) string {
	m := int64(seconds) / 60
	d, h := m/(24*60), m/60%24
	m %= 60
	switch {
	case d > 0:
		return fmt.Sprintf("%dd %dh %dm", d, h, m)
	case h > 0:
		return fmt.Sprintf("%dh %dm", h, m)
	}
	return fmt.Sprintf("%dm", m)
}

// parseOSRelease reads the KEY=value lines of os-release(5).
func parseOSRelease(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, "=")
		if !ok || key == "" || strings.HasPrefix(key, "#") {
			continue
		}
		if n := len(val); n >= 2 && (val[0] == '"' || val[0] == '\'') && val[n-1] == val[0] {
			q := val[0]
			val = val[1 : n-1]
			if q == '"' {
				var b strings.Builder
				for i := 0; i < len(val); i++ {
					if val[i] == '\\' && i+1 < len(val) && strings.IndexByte("\"\\$`", val[i+1]) >= 0 {
						i++
					}
					b.WriteByte(val[i])
				}
				val = b.String()
			}
		}
		out[key] = val
	}
	return out
}

// parseMeminfo reads /proc/meminfo into bytes by field name.
func parseMeminfo(text string) map[string]uint64 {
	out := map[string]uint64{}
	for _, line := range strings.Split(text, "\n") {
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		out[key] = n
	}
	return out
}

// parseCPUInfo finds the CPU model and the number of processors listed in
// /proc/cpuinfo.
func parseCPUInfo(text string) (model string, count int) {
	for _, line := range strings.Split(text, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "processor":
			count++
		case "model name", "Model", "Hardware", "cpu model":
			if model == "" {
				model = val
			}
		}
	}
	return model, count
}

// sysinfoMount is one line of /proc/self/mounts.
type sysinfoMount struct {
	source, point, fstype string
}

func parseMounts(text string) []sysinfoMount {
	var out []sysinfoMount
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		out = append(out, sysinfoMount{source: unescapeMount(f[0]), point: unescapeMount(f[1]), fstype: f[2]})
	}
	return out
}

// unescapeMount undoes the octal escapes (\040 for a space) of the mounts
// file.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sysinfoSocket is a listening socket from /proc/net/tcp or tcp6.
type sysinfoSocket struct {
	addr  netip.AddrPort
	inode uint64
}

// parseNetTCP lists the listening sockets of /proc/net/tcp{,6}. Addresses
// are printed there as 32-bit words in the host's byte order.
func parseNetTCP(text string) []sysinfoSocket {
	var out []sysinfoSocket
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" { // 0A is TCP_LISTEN
			continue
		}
		hexAddr, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		raw, err := hex.DecodeString(hexAddr)
		if err != nil || (len(raw) != 4 && len(raw) != 16) {
			continue
		}
		for i := 0; i < len(raw); i += 4 {
			binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
		}
		ip, _ := netip.AddrFromSlice(raw)
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			continue
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, sysinfoSocket{addr: netip.AddrPortFrom(ip.Unmap(), uint16(port)), inode: inode})
	}
	return out
}
