//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// socketProbe creates the socket kind names ("udp@ADDR" also sends a
// datagram to ADDR) and exits 0 if it could. Errors are printed as the
// kernel's text: "permission denied" is the sandbox's EACCES, where a
// missing capability would say "operation not permitted".
func socketProbe(kind string) int {
	kind, addr, _ := strings.Cut(kind, "@")
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		return 1
	}
	switch kind {
	case "udp", "udp-high-bits":
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return fail("address", err)
		}
		to := &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
		if kind == "udp" {
			// Go's dialer: SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC.
			c, err := net.Dial("udp4", addr)
			if err != nil {
				return fail("dial", err)
			}
			defer c.Close()
			if _, err := c.Write([]byte(kind)); err != nil {
				return fail("send", err)
			}
			return 0
		}
		// High bits the kernel ignores in an int argument.
		fd, err := syscall.Socket(syscall.AF_INET, 1<<32|syscall.SOCK_DGRAM, 0)
		if err != nil {
			return fail("socket", err)
		}
		defer syscall.Close(fd)
		if err := syscall.Sendto(fd, []byte(kind), 0, to); err != nil {
			return fail("send", err)
		}
		return 0
	case "raw", "packet":
		domain, typ, proto := syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP
		if kind == "packet" {
			domain, proto = syscall.AF_PACKET, 0x0300 // htons(ETH_P_ALL)
		}
		fd, err := syscall.Socket(domain, typ, proto)
		if err != nil {
			return fail("socket", err)
		}
		syscall.Close(fd)
		return 0
	case "unix":
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
		if err != nil {
			return fail("socketpair", err)
		}
		defer syscall.Close(fds[0])
		defer syscall.Close(fds[1])
		if _, err := syscall.Write(fds[0], []byte("x")); err != nil {
			return fail("send", err)
		}
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			return fail("socket", err)
		}
		syscall.Close(fd)
		return 0
	}
	return fail("probe", fmt.Errorf("unknown socket kind %q", kind))
}

// TestSockets creates, from inside the sandbox, the sockets Landlock
// cannot confine: refused with the network denied, created with it
// allowed (the controls), so that the refusal is the sandbox's.
func TestSockets(t *testing.T) {
	w := newWorld(t)
	if abi, _ := Available(); abi < NetworkABI {
		t.Skipf("Landlock ABI %d cannot deny the network", abi)
	}
	if _, ok := archSeccomp(runtime.GOARCH); !ok {
		t.Skipf("no socket filter for %s", runtime.GOARCH)
	}
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	self := keptExecutable(t, w)
	probe := func(kind string) string { return socketEnv + "=" + kind + " " + self }
	// Raw and packet sockets need CAP_NET_RAW, which the helper drops
	// even for root, so their control cannot succeed; but its refusal
	// is the capability check's (EPERM), not the filter's (EACCES).

	tests := []struct {
		name    string
		allow   bool
		kind    string
		allowed bool
		// sent is the datagram the UDP server must have received.
		sent string
		// noCap: refused for want of a capability, not by the filter.
		noCap bool
	}{
		{name: "udp send denied", kind: "udp@" + udp.LocalAddr().String()},
		{name: "udp send allowed", allow: true, kind: "udp@" + udp.LocalAddr().String(), allowed: true, sent: "udp"},
		{name: "udp with high bits denied", kind: "udp-high-bits@" + udp.LocalAddr().String()},
		{name: "udp with high bits allowed", allow: true, kind: "udp-high-bits@" + udp.LocalAddr().String(), allowed: true, sent: "udp-high-bits"},
		{name: "raw socket denied", kind: "raw"},
		{name: "raw socket allowed", allow: true, kind: "raw", noCap: true},
		{name: "packet socket denied", kind: "packet"},
		{name: "packet socket allowed", allow: true, kind: "packet", noCap: true},
		{name: "unix sockets with the network denied", kind: "unix", allowed: true},
		{name: "unix sockets with the network allowed", allow: true, kind: "unix", allowed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := w.cfg
			cfg.AllowNetwork = tc.allow
			r := run(t, cfg, probe(tc.kind))
			got := received(t, udp)
			if ok := r.code == 0; ok != tc.allowed {
				t.Fatalf("exit %d, want allowed=%v\nstdout: %s\nstderr: %s", r.code, tc.allowed, r.stdout, r.stderr)
			}
			switch {
			case tc.noCap && !strings.Contains(r.stderr, "operation not permitted"):
				t.Errorf("stderr %q does not say operation not permitted (no CAP_NET_RAW)", r.stderr)
			case !tc.allowed && !tc.noCap && !strings.Contains(r.stderr, "permission denied"):
				t.Errorf("stderr %q does not say permission denied (the sandbox's EACCES)", r.stderr)
			}
			if got != tc.sent {
				t.Errorf("the UDP server received %q, want %q", got, tc.sent)
			}
		})
	}
}

// received drains the datagrams waiting on c without blocking: loopback
// delivers a datagram before sendto returns, so once the sender has
// exited, whatever it sent is already queued.
func received(t *testing.T, c net.PacketConn) string {
	t.Helper()
	raw, err := c.(*net.UDPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	buf := make([]byte, 512)
	err = raw.Read(func(fd uintptr) bool {
		for {
			n, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_DONTWAIT)
			if err != nil {
				return true // EAGAIN: nothing more is queued
			}
			got = append(got, string(buf[:n]))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(got, ",")
}
