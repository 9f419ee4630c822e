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
func seccompData(arch, nr uint32, protocol uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	binary.BigEndian.PutUint32(b[offArg2:], uint32(protocol)) // low half
	binary.BigEndian.PutUint32(b[offArg2+4:], uint32(protocol>>32))
	return b
}

func TestMPTCPFilter(t *testing.T) {
	const (
		allow   = retAllow
		noProto = unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)
		noSys   = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		mptcp   = unix.IPPROTO_MPTCP
		tcp     = unix.IPPROTO_TCP
		getpid  = 39
	)
	amd64, _ := archSeccomp("amd64")
	arm64, _ := archSeccomp("arm64")
	tests := []struct {
		name     string
		arch     seccompArch
		data     []byte
		want     uint32
		archName string
	}{
		{name: "amd64 tcp socket", arch: amd64, data: seccompData(amd64.native, 41, tcp), want: allow},
		{name: "amd64 default socket", arch: amd64, data: seccompData(amd64.native, 41, 0), want: allow},
		{name: "amd64 mptcp socket", arch: amd64, data: seccompData(amd64.native, 41, mptcp), want: noProto},
		{name: "amd64 mptcp with high bits", arch: amd64, data: seccompData(amd64.native, 41, 1<<32|mptcp), want: noProto},
		{name: "amd64 x32 mptcp socket", arch: amd64, data: seccompData(amd64.native, 0x40000000|41, mptcp), want: noProto},
		{name: "amd64 io_uring", arch: amd64, data: seccompData(amd64.native, ioUringSetup, 0), want: noSys},
		{name: "amd64 x32 io_uring", arch: amd64, data: seccompData(amd64.native, 0x40000000|ioUringSetup, 0), want: noSys},
		{name: "amd64 other call", arch: amd64, data: seccompData(amd64.native, getpid, mptcp), want: allow},
		{name: "i386 mptcp socket", arch: amd64, data: seccompData(amd64.compat, 359, mptcp), want: noProto},
		{name: "i386 tcp socket", arch: amd64, data: seccompData(amd64.compat, 359, tcp), want: allow},
		{name: "i386 socketcall", arch: amd64, data: seccompData(amd64.compat, 102, 0), want: noSys},
		{name: "i386 io_uring", arch: amd64, data: seccompData(amd64.compat, ioUringSetup, 0), want: noSys},
		{name: "i386 call numbered like amd64 socket", arch: amd64, data: seccompData(amd64.compat, 41, mptcp), want: allow},
		{name: "unknown arch", arch: amd64, data: seccompData(0x1234, 41, mptcp), want: allow},
		{name: "arm64 mptcp socket", arch: arm64, data: seccompData(arm64.native, 198, mptcp), want: noProto},
		{name: "arm64 tcp socket", arch: arm64, data: seccompData(arm64.native, 198, tcp), want: allow},
		{name: "arm64 io_uring", arch: arm64, data: seccompData(arm64.native, ioUringSetup, 0), want: noSys},
		{name: "arm32 mptcp socket", arch: arm64, data: seccompData(arm64.compat, 281, mptcp), want: noProto},
		{name: "arm32 other call", arch: arm64, data: seccompData(arm64.compat, 102, 0), want: allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := mptcpFilter(tc.arch)
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
