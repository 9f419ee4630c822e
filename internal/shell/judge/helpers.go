package judge

// OnlyInfo reports whether the arguments only ask for a version or help.
func OnlyInfo(args []Arg) bool {
	if len(args) != 1 || !args[0].Known {
		return false
	}
	switch args[0].Val {
	case "--version", "-version", "--help", "-help", "-h", "-V", "version", "help":
		return true
	}
	return false
}

// VerbAt returns the first operand and its index, skipping the values of
// the options in sp.
func VerbAt(args []Arg, sp Spec) (string, int) {
	i := sp.FirstOperand(args)
	if i >= len(args) {
		return "", i
	}
	if !args[i].Known {
		return args[i].Text, i
	}
	return args[i].Val, i
}

// HasOpt reports whether any option matches one of names.
func HasOpt(opts []Option, names ...string) bool {
	for _, o := range opts {
		if o.Is(names...) {
			return true
		}
	}
	return false
}

// OptVal returns the value of the last option matching names.
func OptVal(opts []Option, names ...string) (Arg, bool) {
	var v Arg
	found := false
	for _, o := range opts {
		if o.Is(names...) && o.Has {
			v, found = o.Val, true
		}
	}
	return v, found
}

func Set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
