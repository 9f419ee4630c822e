package judge

import "strings"

// Spec says which options of a program take a value.
type Spec struct {
	ShortVal string   // short options that take a value: -o FILE, -oFILE
	ShortOpt string   // short options whose value is optional and attached: -i.bak
	LongVal  []string // long options that take a value: --output FILE, --output=FILE
	Posix    bool     // options end at the first operand
}

// Option is one option found by scan.
type Option struct {
	Name string // "-o" or "--output" (as given, possibly abbreviated)
	Val  Arg
	Has  bool
}

// Is reports whether the option is one of the given names. Long names match
// the unambiguous abbreviations GNU programs accept.
func (o Option) Is(names ...string) bool {
	for _, n := range names {
		if o.Name == n {
			return true
		}
		if strings.HasPrefix(n, "--") && strings.HasPrefix(o.Name, "--") && len(o.Name) > 3 && strings.HasPrefix(n, o.Name) {
			return true
		}
	}
	return false
}

// Scan splits arguments into options and operands.
func (sp Spec) Scan(args []Arg) (opts []Option, ops []Arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known || len(a.Val) < 2 || a.Val[0] != '-' {
			ops = append(ops, a)
			if sp.Posix {
				return opts, append(ops, args[i+1:]...)
			}
			continue
		}
		if a.Val == "--" {
			return opts, append(ops, args[i+1:]...)
		}
		if strings.HasPrefix(a.Val, "--") {
			name, val, hasEq := strings.Cut(a.Val, "=")
			o := Option{Name: name}
			if hasEq {
				o.Val, o.Has = LiteralArg(val), true
				o.Val.Known = a.Known
			} else if sp.TakesLong(name) && i+1 < len(args) {
				i++
				o.Val, o.Has = args[i], true
			}
			opts = append(opts, o)
			continue
		}
		cluster := a.Val[1:]
		for j := 0; j < len(cluster); j++ {
			ch := cluster[j]
			o := Option{Name: "-" + string(ch)}
			if strings.IndexByte(sp.ShortVal, ch) >= 0 {
				if rest := cluster[j+1:]; rest != "" {
					o.Val, o.Has = LiteralArg(rest), true
				} else if i+1 < len(args) {
					i++
					o.Val, o.Has = args[i], true
				}
				opts = append(opts, o)
				break
			}
			if strings.IndexByte(sp.ShortOpt, ch) >= 0 {
				o.Val, o.Has = LiteralArg(cluster[j+1:]), true
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
	}
	return opts, ops
}

func (sp Spec) TakesLong(name string) bool {
	for _, l := range sp.LongVal {
		full := "--" + l
		if name == full || len(name) > 3 && strings.HasPrefix(full, name) {
			return true
		}
	}
	return false
}

// FirstOperand returns the index of the first word that is not an option,
// skipping the values of the options in sp. It returns len(args) when
// there is none.
func (sp Spec) FirstOperand(args []Arg) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known || len(a.Val) < 2 || a.Val[0] != '-' {
			return i
		}
		if a.Val == "--" {
			return i + 1
		}
		if strings.HasPrefix(a.Val, "--") {
			if !strings.Contains(a.Val, "=") && sp.TakesLong(a.Val) {
				i++
			}
			continue
		}
		cluster := a.Val[1:]
		for j := 0; j < len(cluster); j++ {
			if strings.IndexByte(sp.ShortVal, cluster[j]) >= 0 {
				if j == len(cluster)-1 {
					i++
				}
				break
			}
			if strings.IndexByte(sp.ShortOpt, cluster[j]) >= 0 {
				break
			}
		}
	}
	return len(args)
}

// UnknownArgs reports whether any word might be an option nobody checked.
func UnknownArgs(args []Arg) (Arg, bool) {
	for _, a := range args {
		if a.FlagUnknown() {
			return a, true
		}
	}
	return Arg{}, false
}
