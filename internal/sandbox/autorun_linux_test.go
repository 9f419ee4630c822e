//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needFeature skips a test whose kernel feature is missing, except under
// CI, where a sandbox test that did not exercise the sandbox must fail.
func needFeature(t *testing.T, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI: %s", why)
	}
	t.Skip(why)
}

// autoRunWorld is a world whose auto-run profile can be built here.
func autoRunWorld(t *testing.T) world {
	t.Helper()
	_, ok := Available()
	needFeature(t, ok, "Landlock is unavailable here")
	w := newWorld(t)
	s := Probe()
	needFeature(t, s.AutoRun, "the auto-run sandbox cannot be built here: "+s.AutoRunWhy)
	return w
}

// netProbe runs one network attempt, named by kind, in the test binary
// started from a sandboxed shell, and exits 0 if it got through.
func netProbe(kind string) int {
	kind, addr, _ := strings.Cut(kind, "@")
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		return 1
	}
	switch kind {
	case "tfo", "tcp":
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return fail("address", err)
		}
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			return fail("socket", err)
		}
		defer syscall.Close(fd)
		to := &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
		if kind == "tcp" {
			err = syscall.Connect(fd, to)
		} else {
			// TCP Fast Open: sendto on an unconnected socket connects.
			err = syscall.Sendto(fd, []byte("tfo"), syscall.MSG_FASTOPEN, to)
		}
		if err != nil {
			return fail(kind, err)
		}
		_, err = syscall.Write(fd, []byte(kind))
		if err != nil {
			return fail("write", err)
		}
		return 0
	case "listen":
		// listen() without bind(): the kernel picks a port.
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			return fail("socket", err)
		}
		defer syscall.Close(fd)
		if err := syscall.Listen(fd, 1); err != nil {
			return fail("listen", err)
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			return fail("getsockname", err)
		}
		fmt.Printf("listening on port %d\n", sa.(*syscall.SockaddrInet4).Port)
		return 0
	case "netlink-route", "netlink-audit":
		proto := syscall.NETLINK_ROUTE
		if kind == "netlink-audit" {
			proto = syscall.NETLINK_AUDIT
		}
		fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW, proto)
		if err != nil {
			return fail("socket", err)
		}
		syscall.Close(fd)
		return 0
	case "unix-stream":
		c, err := net.Dial("unix", addr)
		if err != nil {
			return fail("dial", err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("unix")); err != nil {
			return fail("write", err)
		}
		return 0
	}
	return socketProbe(kind + "@" + addr)
}

// tcpServer accepts on 127.0.0.1 and reports what each connection sent.
func tcpServer(t *testing.T) (net.Listener, <-chan string) {
	t.Helper()
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(t.Context(), "tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Let the server side accept Fast Open data without a cookie.
	if raw, err := ln.(*net.TCPListener).SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, 23 /* TCP_FASTOPEN */, 16)
		})
	}
	got := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			buf := make([]byte, 16)
			n, _ := c.Read(buf)
			got <- string(buf[:n])
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln, got
}

// drain collects what the server got within a short while.
func drain(got <-chan string) string {
	var out []string
	timeout := time.After(300 * time.Millisecond)
	for {
		select {
		case s := <-got:
			out = append(out, s)
		case <-timeout:
			return strings.Join(out, ",")
		}
	}
}

// control names the approved profile under which a line must get through.
type control int

const (
	noControl control = iota
	withNetwork
	withoutNetwork
)

// TestAutoRunNetwork tries every way out under the auto-run profile, with
// AllowNetwork true (which the profile ignores), and each control as an
// approved command with the network allowed, or denied where the control
// is something the network-denied profile still allows.
func TestAutoRunNetwork(t *testing.T) {
	w := autoRunWorld(t)
	self := keptExecutable(t, w)
	ln, gotTCP := tcpServer(t)
	tcpAddr := ln.Addr().String()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	sock := filepath.Join(w.tmp, "daemon.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			// Read before closing, so that the client's write
			// never meets a closed connection.
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			_, _ = c.Read(make([]byte, 16))
			c.Close()
		}
	}()
	probe := func(kind string) string { return netEnv + "=" + kind + " " + self }
	// A DNS query (for wisp.example, type A) sent by a resolver library
	// to a server the test runs: what a look-up that leaks data does.
	dnsQuery := fmt.Sprintf(`python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(bytes.fromhex("abcd010000010000000000000477697370076578616d706c650000010001"), ("127.0.0.1", %d)); print("sent")'`, udp.LocalAddr().(*net.UDPAddr).Port)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	tests := []struct {
		name string
		line string
		// server names what the TCP or UDP server must not receive.
		server string
		// control: the approved profile that lets the line through.
		control control
		python  bool
	}{
		{name: "tcp connect to loopback", line: probe("tcp@" + tcpAddr), server: "tcp", control: withNetwork},
		{name: "bash /dev/tcp", line: "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo bash >&3", server: "tcp", control: withNetwork},
		{name: "tcp fast open", line: probe("tfo@" + tcpAddr), server: "tcp", control: withNetwork},
		{name: "udp send", line: probe("udp@" + udp.LocalAddr().String()), server: "udp", control: withNetwork},
		{name: "dns query", line: dnsQuery, server: "udp", control: withNetwork, python: true},
		{name: "listen without bind", line: probe("listen"), control: withNetwork},
		{name: "raw socket", line: probe("raw")},
		{name: "packet socket", line: probe("packet")},
		{name: "netlink audit socket", line: probe("netlink-audit"), control: withoutNetwork},
		{name: "daemon's unix socket", line: probe("unix-stream@" + sock), control: withoutNetwork},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.python {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("no python3 here")
				}
			}
			cfg := w.cfg
			cfg.AutoRun, cfg.AllowNetwork = true, true
			r := run(t, cfg, tc.line)
			if r.code == 0 {
				t.Errorf("auto-run: exit 0, the attempt got through\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			switch tc.server {
			case "tcp":
				if got := drain(gotTCP); got != "" {
					t.Errorf("auto-run: the TCP server received %q", got)
				}
			case "udp":
				if got := received(t, udp); got != "" {
					t.Errorf("auto-run: the UDP server received %q", got)
				}
			}
			if tc.control == noControl {
				return // raw and packet sockets need a capability no command has
			}
			ctl := w.cfg
			ctl.AllowNetwork = tc.control == withNetwork
			r = run(t, ctl, tc.line)
			if r.code != 0 {
				t.Errorf("control (approved, allowNetwork %v) failed, so the test proves nothing: exit %d\nstderr: %s", ctl.AllowNetwork, r.code, r.stderr)
			}
			switch tc.server {
			case "tcp":
				if got := drain(gotTCP); got == "" {
					t.Error("control: the TCP server received nothing")
				}
			case "udp":
				if got := received(t, udp); got == "" {
					t.Error("control: the UDP server received nothing")
				}
			}
		})
	}

	t.Run("system resolver", func(t *testing.T) {
		cfg := w.cfg
		cfg.AutoRun, cfg.AllowNetwork = true, true
		for _, line := range []string{
			"getent ahosts wisp-autorun-test.example.com",
			`python3 -c 'import socket; print(socket.getaddrinfo("wisp-autorun-test.example.com", 80))'`,
		} {
			if r := run(t, cfg, line); r.code == 0 {
				t.Errorf("%s resolved a name: %s", line, r.stdout)
			}
		}
	})
	t.Run("netlink route stays for libc", func(t *testing.T) {
		cfg := w.cfg
		cfg.AutoRun = true
		if r := run(t, cfg, probe("netlink-route")); r.code != 0 {
			t.Errorf("NETLINK_ROUTE refused: %s", r.stderr)
		}
	})
}

// TestApprovedNetworkHoles: with the network denied, an approved command
// can neither Fast Open a connection nor listen without binding (both
// get past Landlock's TCP rules); the controls allow the network.
func TestApprovedNetworkHoles(t *testing.T) {
	w := newWorld(t)
	abi, _ := Available()
	needFeature(t, abi >= NetworkABI, fmt.Sprintf("Landlock ABI %d cannot deny the network", abi))
	self := keptExecutable(t, w)
	ln, got := tcpServer(t)
	for _, kind := range []string{"tfo@" + ln.Addr().String(), "listen"} {
		t.Run(strings.Split(kind, "@")[0], func(t *testing.T) {
			line := netEnv + "=" + kind + " " + self
			r := run(t, w.cfg, line)
			if r.code == 0 || strings.Contains(r.stdout, "listening") {
				t.Errorf("network denied: the attempt got through\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, "permission denied") {
				t.Errorf("stderr %q does not say permission denied", r.stderr)
			}
			if s := drain(got); s != "" {
				t.Errorf("network denied: the server received %q", s)
			}
			cfg := w.cfg
			cfg.AllowNetwork = true
			if r := run(t, cfg, line); r.code != 0 {
				t.Errorf("control with the network allowed failed: %s", r.stderr)
			}
			if strings.HasPrefix(kind, "tfo") && drain(got) == "" {
				t.Error("control: the server received nothing over Fast Open")
			}
		})
	}
}

// TestProbe checks that Probe's answer is consistent with itself and with
// what the helper then does.
func TestProbe(t *testing.T) {
	s := Probe()
	abi, ok := Available()
	if s.LandlockABI != abi || s.Landlock != ok {
		t.Errorf("Probe Landlock %d/%v, Available %d/%v", s.LandlockABI, s.Landlock, abi, ok)
	}
	switch s.Containment {
	case ContainCgroup, ContainPidNamespace:
		if s.PidsMax != DefaultPidsMax && s.Containment == ContainCgroup {
			t.Errorf("cgroup containment with PidsMax %d", s.PidsMax)
		}
	case ContainProcessGroup:
		if s.AutoRun {
			t.Error("auto-run reported without namespaces")
		}
	default:
		t.Errorf("unknown containment %q", s.Containment)
	}
	if !s.AutoRun && s.AutoRunWhy == "" {
		t.Error("auto-run unavailable without a reason")
	}
	if Probe() != s {
		t.Error("Probe's answer changed")
	}
	needFeature(t, s.AutoRun, "the auto-run sandbox cannot be built here: "+s.AutoRunWhy)
	w := newWorld(t)
	cfg := w.cfg
	cfg.AutoRun = true
	if r := run(t, cfg, "ls /proc | grep -c '^[0-9]'"); r.code != 0 {
		t.Errorf("an auto-run line failed where Probe says it can run: %s", r.stderr)
	}
}

// keptExecutable returns the test binary at a path an auto-run command
// can reach: the go tool builds it under /tmp, which the auto-run
// profile covers, so it is linked (or copied) into the world's TMPDIR.
func keptExecutable(t *testing.T, w world) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(w.tmp, "sandbox.test")
	if os.Link(self, dst) == nil {
		return dst
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}
