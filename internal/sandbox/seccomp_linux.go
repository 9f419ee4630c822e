//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Landlock's TCP rules do not apply to Multipath TCP sockets (checked on
// this kernel: an MPTCP connect to a denied port succeeds), and Go's
// net.Listen uses MPTCP by default. So a command denied the network also
// gets a seccomp filter that refuses to create MPTCP sockets, and refuses
// io_uring, whose socket operation would create one without the socket
// system call. Programs then fall back to plain TCP, which Landlock sees.
//
// The filter is written here rather than with a seccomp library because
// the one pure-Go candidate (elastic/go-seccomp-bpf) compares all 64 bits
// of an argument while the kernel reads socket's protocol as a 32-bit int:
// a protocol of 1<<32|IPPROTO_MPTCP would pass its check and still create
// an MPTCP socket.

// seccompArch describes the system call numbers the filter looks at.
type seccompArch struct {
	native uint32 // AUDIT_ARCH of this build
	socket uint32 // socket(2) number
	// x32 is set on amd64, where x32 calls share the arch value and carry
	// this bit in their number.
	x32 uint32
	// compat is the 32-bit ABI the kernel may also run (0 if none), with
	// its socket(2) and socketcall(2) numbers (0 if it has none).
	compat, compatSocket, compatSocketcall uint32
}

const ioUringSetup = 425 // the same number on every architecture

// archSeccomp describes the running architecture, ok false where the
// filter is not written for it (the sandbox then cannot stop MPTCP).
func archSeccomp(goarch string) (a seccompArch, ok bool) {
	switch goarch {
	case "amd64":
		return seccompArch{native: unix.AUDIT_ARCH_X86_64, socket: 41, x32: 0x40000000,
			compat: unix.AUDIT_ARCH_I386, compatSocket: 359, compatSocketcall: 102}, true
	case "arm64":
		return seccompArch{native: unix.AUDIT_ARCH_AARCH64, socket: 198,
			compat: unix.AUDIT_ARCH_ARM, compatSocket: 281}, true
	}
	return seccompArch{}, false
}

// Offsets in struct seccomp_data; both architectures are little-endian,
// so the low half of args[2] comes first.
const (
	offNr    = 0
	offArch  = 4
	offArg2  = 16 + 2*8
	retAllow = unix.SECCOMP_RET_ALLOW
)

// mptcpFilter builds the filter for a.
func mptcpFilter(a seccompArch) ([]bpf.RawInstruction, error) {
	var p labelled
	foreign := "allow"
	if a.compat != 0 {
		foreign = "foreign"
	}
	p.op(bpf.LoadAbsolute{Off: offArch, Size: 4})
	p.jeq(a.native, "", foreign)
	p.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.x32 != 0 {
		p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ^a.x32})
	}
	p.jeq(ioUringSetup, "nosys", "")
	p.jeq(a.socket, "protocol", "allow")

	if a.compat != 0 {
		p.label("foreign") // the arch is still loaded
		p.jeq(a.compat, "", "allow")
		p.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
		p.jeq(ioUringSetup, "nosys", "")
		if a.compatSocketcall != 0 {
			// Its arguments are in memory the filter cannot read.
			p.jeq(a.compatSocketcall, "nosys", "")
		}
		p.jeq(a.compatSocket, "protocol", "allow")
	}

	p.label("protocol")
	p.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
	p.jeq(unix.IPPROTO_MPTCP, "", "allow")
	p.op(bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)})
	p.label("nosys")
	p.op(bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	p.label("allow")
	p.op(bpf.RetConstant{Val: retAllow})
	return p.assemble()
}

// denyMPTCP installs the filter on the calling thread, which must hold
// no_new_privs and must be the thread that execs.
func denyMPTCP() error {
	a, ok := archSeccomp(runtime.GOARCH)
	if !ok {
		return nil
	}
	raw, err := mptcpFilter(a)
	if err != nil {
		return fmt.Errorf("assemble the MPTCP filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("install the MPTCP filter: %w", err)
	}
	runtime.KeepAlive(filter)
	return nil
}

// labelled is a BPF program whose conditional jumps name their targets;
// "" is the next instruction. BPF only jumps forward.
type labelled struct {
	ins     []bpf.Instruction
	targets map[int][2]string
	labels  map[string]int
}

func (p *labelled) op(i bpf.Instruction) { p.ins = append(p.ins, i) }

func (p *labelled) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

func (p *labelled) jeq(val uint32, yes, no string) {
	if p.targets == nil {
		p.targets = map[int][2]string{}
	}
	p.targets[len(p.ins)] = [2]string{yes, no}
	p.op(bpf.JumpIf{Cond: bpf.JumpEqual, Val: val})
}

func (p *labelled) assemble() ([]bpf.RawInstruction, error) {
	skip := func(from int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := p.labels[name]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("jump from %d to %q cannot be encoded", from, name)
		}
		return uint8(to - from - 1), nil
	}
	for at, t := range p.targets {
		j := p.ins[at].(bpf.JumpIf)
		var err error
		if j.SkipTrue, err = skip(at, t[0]); err != nil {
			return nil, err
		}
		if j.SkipFalse, err = skip(at, t[1]); err != nil {
			return nil, err
		}
		p.ins[at] = j
	}
	return bpf.Assemble(p.ins)
}
