//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data for x/net/bpf's VM. The VM
// loads words big-endian (it is made for packets) where the kernel loads
// them natively, so each word the filter reads is stored big-endian at
// the offset the kernel would read it from.
func seccompData(arch, nr uint32, domain, typ, protocol uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	for off, v := range map[int]uint64{offArg0: domain, offArg1: typ, offArg2: protocol} {
		binary.BigEndian.PutUint32(b[off:], uint32(v)) // low half
		binary.BigEndian.PutUint32(b[off+4:], uint32(v>>32))
	}
	return b
}

func TestSocketFilter(t *testing.T) {
	const (
		allow   = retAllow
		refuse  = retRefuse
		noSys   = retNoSys
		inet    = unix.AF_INET
		inet6   = unix.AF_INET6
		stream  = unix.SOCK_STREAM
		dgram   = unix.SOCK_DGRAM
		flags   = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC
		mptcp   = unix.IPPROTO_MPTCP
		tcp     = unix.IPPROTO_TCP
		getpid  = 39
		x32     = 0x40000000
		nlAudit = 9
		ap      = approvedSockets
		ar      = autoRunSockets
	)
	amd64, _ := archSeccomp("amd64")
	arm64, _ := archSeccomp("arm64")
	a, i386 := amd64.native, amd64.compat
	tests := []struct {
		name    string
		arch    seccompArch
		profile socketProfile
		data    []byte
		want    uint32
	}{
		// Every IP socket is refused: TCP too, since Fast Open and
		// listen() on an unbound socket get past Landlock.
		{name: "tcp socket", arch: amd64, data: seccompData(a, 41, inet, stream, tcp), want: refuse},
		{name: "default stream socket", arch: amd64, data: seccompData(a, 41, inet, stream, 0), want: refuse},
		{name: "tcp6 socket with Go's flags", arch: amd64, data: seccompData(a, 41, inet6, stream|flags, 0), want: refuse},
		{name: "mptcp socket", arch: amd64, data: seccompData(a, 41, inet, stream, mptcp), want: refuse},
		{name: "tcp with high bits in domain", arch: amd64, data: seccompData(a, 41, 1<<32|inet, stream, 0), want: refuse},
		{name: "udp socket", arch: amd64, data: seccompData(a, 41, inet, dgram, 0), want: refuse},
		{name: "udp socket with high bits in domain", arch: amd64, data: seccompData(a, 41, 1<<32|inet, dgram, 0), want: refuse},
		{name: "udp6 socket", arch: amd64, data: seccompData(a, 41, inet6, dgram, unix.IPPROTO_UDP), want: refuse},
		{name: "icmp ping socket", arch: amd64, data: seccompData(a, 41, inet, dgram, unix.IPPROTO_ICMP), want: refuse},
		{name: "raw socket", arch: amd64, data: seccompData(a, 41, inet, unix.SOCK_RAW, unix.IPPROTO_ICMP), want: refuse},
		{name: "packet socket", arch: amd64, data: seccompData(a, 41, unix.AF_PACKET, unix.SOCK_RAW, 0x300), want: refuse},
		{name: "vsock socket", arch: amd64, data: seccompData(a, 41, unix.AF_VSOCK, stream, 0), want: refuse},
		{name: "smc socket", arch: amd64, data: seccompData(a, 41, unix.AF_SMC, stream, 0), want: refuse},
		{name: "unix stream socket", arch: amd64, data: seccompData(a, 41, unix.AF_UNIX, stream|flags, 0), want: allow},
		{name: "unix dgram socket", arch: amd64, data: seccompData(a, 41, unix.AF_UNIX, dgram, 0), want: allow},
		{name: "netlink socket", arch: amd64, data: seccompData(a, 41, unix.AF_NETLINK, unix.SOCK_RAW, 0), want: allow},
		{name: "netlink audit socket", arch: amd64, data: seccompData(a, 41, unix.AF_NETLINK, unix.SOCK_RAW, nlAudit), want: allow},
		{name: "crypto socket", arch: amd64, data: seccompData(a, 41, unix.AF_ALG, unix.SOCK_SEQPACKET, 0), want: allow},
		{name: "x32 udp socket", arch: amd64, data: seccompData(a, x32|41, inet, dgram, 0), want: refuse},
		{name: "x32 tcp socket", arch: amd64, data: seccompData(a, x32|41, inet, stream, tcp), want: refuse},
		{name: "io_uring", arch: amd64, data: seccompData(a, ioUringSetup, 0, 0, 0), want: noSys},
		{name: "x32 io_uring", arch: amd64, data: seccompData(a, x32|ioUringSetup, 0, 0, 0), want: noSys},
		{name: "other call", arch: amd64, data: seccompData(a, getpid, inet, dgram, mptcp), want: allow},
		{name: "i386 udp socket", arch: amd64, data: seccompData(i386, 359, inet, dgram, 0), want: refuse},
		{name: "i386 tcp socket", arch: amd64, data: seccompData(i386, 359, inet, stream, tcp), want: refuse},
		{name: "i386 unix socket", arch: amd64, data: seccompData(i386, 359, unix.AF_UNIX, stream, 0), want: allow},
		{name: "i386 socketcall", arch: amd64, data: seccompData(i386, 102, 0, 0, 0), want: noSys},
		{name: "i386 io_uring", arch: amd64, data: seccompData(i386, ioUringSetup, 0, 0, 0), want: noSys},
		{name: "i386 call numbered like amd64 socket", arch: amd64, data: seccompData(i386, 41, inet, dgram, mptcp), want: allow},
		{name: "unknown arch", arch: amd64, data: seccompData(0x1234, 41, inet, dgram, mptcp), want: allow},
		{name: "arm64 tcp socket", arch: arm64, data: seccompData(arm64.native, 198, inet, stream, tcp), want: refuse},
		{name: "arm64 udp socket", arch: arm64, data: seccompData(arm64.native, 198, inet6, dgram|flags, 0), want: refuse},
		{name: "arm64 unix socket", arch: arm64, data: seccompData(arm64.native, 198, unix.AF_UNIX, stream, 0), want: allow},
		{name: "arm64 io_uring", arch: arm64, data: seccompData(arm64.native, ioUringSetup, 0, 0, 0), want: noSys},
		{name: "arm32 udp socket", arch: arm64, data: seccompData(arm64.compat, 281, inet, dgram, 0), want: refuse},
		{name: "arm32 other call", arch: arm64, data: seccompData(arm64.compat, 102, 0, 0, 0), want: allow},

		// The auto-run profile: what libc needs locally, nothing more.
		{name: "auto-run tcp socket", arch: amd64, profile: ar, data: seccompData(a, 41, inet, stream, 0), want: refuse},
		{name: "auto-run udp socket", arch: amd64, profile: ar, data: seccompData(a, 41, inet, dgram, 0), want: refuse},
		{name: "auto-run unix stream socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_UNIX, stream|flags, 0), want: refuse},
		{name: "auto-run unix seqpacket socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_UNIX, unix.SOCK_SEQPACKET, 0), want: refuse},
		{name: "auto-run unix dgram socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_UNIX, dgram|flags, 0), want: allow},
		{name: "auto-run unix dgram with high bits", arch: amd64, profile: ar, data: seccompData(a, 41, 1<<32|unix.AF_UNIX, 1<<32|dgram, 0), want: allow},
		{name: "auto-run netlink route socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_NETLINK, unix.SOCK_RAW|flags, unix.NETLINK_ROUTE), want: allow},
		{name: "auto-run netlink audit socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_NETLINK, unix.SOCK_RAW, nlAudit), want: refuse},
		{name: "auto-run crypto socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_ALG, unix.SOCK_SEQPACKET, 0), want: refuse},
		{name: "auto-run packet socket", arch: amd64, profile: ar, data: seccompData(a, 41, unix.AF_PACKET, dgram, 0), want: refuse},
		{name: "auto-run i386 unix stream", arch: amd64, profile: ar, data: seccompData(i386, 359, unix.AF_UNIX, stream, 0), want: refuse},
		{name: "auto-run io_uring", arch: amd64, profile: ar, data: seccompData(a, ioUringSetup, 0, 0, 0), want: noSys},
		{name: "auto-run arm64 unix stream", arch: arm64, profile: ar, data: seccompData(arm64.native, 198, unix.AF_UNIX, stream, 0), want: refuse},
		{name: "auto-run other call", arch: amd64, profile: ar, data: seccompData(a, getpid, 0, 0, 0), want: allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := socketFilter(tc.arch, tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			ins, ok := bpf.Disassemble(raw)
			if !ok {
				t.Fatal("the filter does not disassemble")
			}
			vm, err := bpf.NewVM(ins)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tc.want {
				t.Errorf("filter returned %#x, want %#x", got, tc.want)
			}
		})
	}
}
