package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/tool"
)

// Collect gathers the rows that answer topic; disk also reports the
// file system holding env.Workdir.
func Collect(topic string, env *tool.Env) ([]string, error) {
	switch topic {
	case "os":
		return sysinfoOS()
	case "cpu":
		return sysinfoCPU()
	case "memory":
		return sysinfoMemory()
	case "disk":
		return sysinfoDisk(env)
	case "processes":
		return sysinfoProcesses()
	default:
		return sysinfoPorts()
	}
}

// sysinfoRead reads a small file as trimmed text.
func sysinfoRead(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func sysinfoOS() ([]string, error) {
	var rows []string
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if text, err := sysinfoRead(p); err == nil {
			rel := parseOSRelease(text)
			name := rel["PRETTY_NAME"]
			if name == "" {
				name = strings.TrimSpace(rel["NAME"] + " " + rel["VERSION"])
			}
			if name != "" {
				rows = append(rows, "os: "+name)
			}
			break
		}
	}
	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		return nil, fmt.Errorf("uname: %w", err)
	}
	rows = append(rows,
		"kernel: "+unix.ByteSliceToString(uts.Sysname[:])+" "+unix.ByteSliceToString(uts.Release[:]),
		"architecture: "+unix.ByteSliceToString(uts.Machine[:]))
	if h, err := os.Hostname(); err == nil {
		rows = append(rows, "hostname: "+h)
	}
	if up, err := sysinfoRead("/proc/uptime"); err == nil {
		if f := strings.Fields(up); len(f) > 0 {
			if s, err := strconv.ParseFloat(f[0], 64); err == nil {
				rows = append(rows, "uptime: "+sysinfoDuration(s))
			}
		}
	}
	switch {
	case sysinfoExists("/.dockerenv"):
		rows = append(rows, "container: docker")
	case sysinfoExists("/run/.containerenv"):
		rows = append(rows, "container: podman")
	}
	return rows, nil
}

func sysinfoExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func sysinfoCPU() ([]string, error) {
	text, err := sysinfoRead("/proc/cpuinfo")
	if err != nil {
		return nil, err
	}
	model, listed := parseCPUInfo(text)
	if model == "" {
		model = "unknown"
	}
	rows := []string{"model: " + model, fmt.Sprintf("cpus: %d usable of %d", runtime.NumCPU(), max(listed, runtime.NumCPU()))}
	if q := sysinfoCPUQuota(); q != "" {
		rows = append(rows, "cgroup limit: "+q+" cpus")
	}
	if load, err := sysinfoRead("/proc/loadavg"); err == nil {
		if f := strings.Fields(load); len(f) >= 4 {
			rows = append(rows, fmt.Sprintf("load average: %s %s %s (1, 5, 15 min)", f[0], f[1], f[2]))
			if run, total, ok := strings.Cut(f[3], "/"); ok {
				rows = append(rows, fmt.Sprintf("tasks: %s running of %s", run, total))
			}
		}
	}
	return rows, nil
}

// sysinfoCPUQuota reads the CPU limit of the cgroup (v2, else v1).
func sysinfoCPUQuota() string {
	var quota, period float64
	if s, err := sysinfoRead("/sys/fs/cgroup/cpu.max"); err == nil {
		f := strings.Fields(s)
		if len(f) != 2 || f[0] == "max" {
			return ""
		}
		quota, _ = strconv.ParseFloat(f[0], 64)
		period, _ = strconv.ParseFloat(f[1], 64)
	} else {
		q, err1 := sysinfoRead("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
		p, err2 := sysinfoRead("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
		if err1 != nil || err2 != nil {
			return ""
		}
		quota, _ = strconv.ParseFloat(q, 64)
		period, _ = strconv.ParseFloat(p, 64)
	}
	if quota <= 0 || period <= 0 {
		return ""
	}
	return strconv.FormatFloat(quota/period, 'f', -1, 64)
}

func sysinfoMemory() ([]string, error) {
	text, err := sysinfoRead("/proc/meminfo")
	if err != nil {
		return nil, err
	}
	m := parseMeminfo(text)
	total, avail := m["MemTotal"], m["MemAvailable"]
	if avail == 0 {
		avail = m["MemFree"] + m["Buffers"] + m["Cached"]
	}
	rows := []string{"total: " + sysinfoSize(total), "available: " + sysinfoSize(avail)}
	if total >= avail && total > 0 {
		used := total - avail
		rows = append(rows, fmt.Sprintf("used: %s (%d%%)", sysinfoSize(used), used*100/total))
	}
	rows = append(rows, "cached: "+sysinfoSize(m["Cached"]+m["Buffers"]))
	if st := m["SwapTotal"]; st > 0 {
		rows = append(rows, fmt.Sprintf("swap: %s used of %s", sysinfoSize(st-min(st, m["SwapFree"])), sysinfoSize(st)))
	} else {
		rows = append(rows, "swap: none")
	}
	if limit, usage := sysinfoMemLimit(); limit > 0 && limit < total {
		row := "cgroup limit: " + sysinfoSize(limit)
		if usage > 0 {
			row += fmt.Sprintf(" (%s in use)", sysinfoSize(usage))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// sysinfoMemLimit reads the memory limit and usage of the cgroup (v2, else v1).
func sysinfoMemLimit() (limit, usage uint64) {
	read := func(p string) uint64 {
		s, err := sysinfoRead(p)
		if err != nil {
			return 0
		}
		n, _ := strconv.ParseUint(s, 10, 64) // "max" reads as 0: no limit
		return n
	}
	if limit = read("/sys/fs/cgroup/memory.max"); limit > 0 {
		return limit, read("/sys/fs/cgroup/memory.current")
	}
	return read("/sys/fs/cgroup/memory/memory.limit_in_bytes"), read("/sys/fs/cgroup/memory/memory.usage_in_bytes")
}

// sysinfoPseudoFS tells filesystems that hold no user data.
func sysinfoPseudoFS(fstype string) bool {
	switch fstype {
	case "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "securityfs", "debugfs",
		"tracefs", "pstore", "bpf", "autofs", "configfs", "fusectl", "hugetlbfs", "binfmt_misc",
		"nsfs", "rpc_pipefs", "efivarfs", "selinuxfs", "devtmpfs", "ramfs", "squashfs", "tmpfs":
		return true
	}
	return false
}

func sysinfoDisk(env *tool.Env) ([]string, error) {
	text, err := sysinfoRead("/proc/self/mounts")
	if err != nil {
		return nil, err
	}
	mounts := parseMounts(text)
	// The filesystems of the workspace and the temp dir are shown even
	// when they are tmpfs.
	want := map[string]string{}
	for _, w := range [][2]string{{"workspace", env.Workdir}, {"temp", os.TempDir()}} {
		label, p := w[0], w[1]
		if p == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if m := sysinfoMountOf(mounts, p); m != "" {
			if want[m] != "" {
				label = want[m] + ", " + label
			}
			want[m] = label
		}
	}
	seen := map[[2]int32]bool{}
	var rows []string
	for _, m := range mounts {
		label := want[m.point]
		if sysinfoPseudoFS(m.fstype) && label == "" {
			continue
		}
		var st unix.Statfs_t
		if err := unix.Statfs(m.point, &st); err != nil || st.Blocks == 0 {
			continue
		}
		id := [2]int32(st.Fsid.Val)
		if seen[id] && label == "" {
			continue // the same filesystem mounted again (bind mounts)
		}
		seen[id] = true
		bs := uint64(st.Bsize)
		size, avail := st.Blocks*bs, st.Bavail*bs
		used := (st.Blocks - st.Bfree) * bs
		pct := uint64(0)
		if used+avail > 0 {
			pct = (used*100 + used + avail - 1) / (used + avail)
		}
		point := m.point
		if label != "" {
			point += " (" + label + ")"
		}
		rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%d%%", point, m.fstype, sysinfoSize(size), sysinfoSize(used), sysinfoSize(avail), pct))
	}
	return sysinfoTable("MOUNT\tTYPE\tSIZE\tUSED\tAVAIL\tUSE%", rows, MaxRows-1), nil
}

// sysinfoMountOf finds the mount point holding path: the longest prefix.
func sysinfoMountOf(mounts []sysinfoMount, path string) string {
	best := ""
	for _, m := range mounts {
		p := m.point
		if (path == p || strings.HasPrefix(path, strings.TrimSuffix(p, "/")+"/")) && len(p) >= len(best) {
			best = p
		}
	}
	return best
}

// sysinfoProc is one process as /proc shows it. Only the short command
// name is read, never the command line: arguments may hold secrets and
// this tool runs without approval.
type sysinfoProc struct {
	pid  int
	rss  uint64
	name string
}

func sysinfoProcs() ([]sysinfoProc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	page := uint64(os.Getpagesize())
	var out []sysinfoProc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		statm, err := os.ReadFile("/proc/" + e.Name() + "/statm")
		if err != nil {
			continue // ended meanwhile
		}
		f := strings.Fields(string(statm))
		if len(f) < 2 {
			continue
		}
		pages, _ := strconv.ParseUint(f[1], 10, 64)
		name, _ := sysinfoRead("/proc/" + e.Name() + "/comm")
		out = append(out, sysinfoProc{pid: pid, rss: pages * page, name: name})
	}
	return out, nil
}

func sysinfoProcesses() ([]string, error) {
	procs, err := sysinfoProcs()
	if err != nil {
		return nil, err
	}
	sort.Slice(procs, func(i, j int) bool {
		if procs[i].rss != procs[j].rss {
			return procs[i].rss > procs[j].rss
		}
		return procs[i].pid < procs[j].pid
	})
	room := MaxRows - 2
	var rows []string
	for _, p := range procs {
		if len(rows) == room || p.rss == 0 {
			break
		}
		rows = append(rows, fmt.Sprintf("%d\t%s\t%s", p.pid, sysinfoSize(p.rss), p.name))
	}
	head := fmt.Sprintf("%d processes; the %d largest by resident memory:", len(procs), len(rows))
	return append([]string{head}, sysinfoTable("PID\tRSS\tCOMMAND", rows, room)...), nil
}

func sysinfoPorts() ([]string, error) {
	var socks []sysinfoSocket
	for _, p := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue // no IPv6
			}
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		socks = append(socks, parseNetTCP(string(b))...)
	}
	if len(socks) == 0 {
		return []string{"no listening TCP ports"}, nil
	}
	sort.Slice(socks, func(i, j int) bool {
		if socks[i].addr.Port() != socks[j].addr.Port() {
			return socks[i].addr.Port() < socks[j].addr.Port()
		}
		return socks[i].addr.Addr().Less(socks[j].addr.Addr())
	})
	owners := sysinfoSocketOwners(socks)
	rows := make([]string, 0, len(socks))
	for _, s := range socks {
		owner := "?"
		if p, ok := owners[s.inode]; ok {
			owner = fmt.Sprintf("%s (pid %d)", p.name, p.pid)
		}
		rows = append(rows, fmt.Sprintf("%d\t%s\t%s", s.addr.Port(), s.addr.Addr(), owner))
	}
	return sysinfoTable("PORT\tADDRESS\tPROCESS", rows, MaxRows-1), nil
}

// sysinfoSocketOwners maps socket inodes to the processes holding them, as
// far as /proc lets us see (other users' descriptors are hidden).
func sysinfoSocketOwners(socks []sysinfoSocket) map[uint64]sysinfoProc {
	need := map[uint64]bool{}
	for _, s := range socks {
		need[s.inode] = true
	}
	out := map[uint64]sysinfoProc{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + e.Name() + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(dir + "/" + fd.Name())
			if err != nil || !strings.HasPrefix(target, "socket:[") {
				continue
			}
			inode, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]"), 10, 64)
			if err != nil || !need[inode] {
				continue
			}
			if _, ok := out[inode]; !ok {
				name, _ := sysinfoRead("/proc/" + e.Name() + "/comm")
				out[inode] = sysinfoProc{pid: pid, name: name}
			}
		}
		if len(out) == len(need) {
			break
		}
	}
	return out
}
