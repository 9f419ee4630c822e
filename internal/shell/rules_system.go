package shell

import (
	"strings"
)

// Programs that change the machine rather than files: disks, services,
// processes, the shell's own state.

func ruleDisk(k *cmd) {
	switch k.name {
	case "mount", "swapon":
		if len(k.args) == 0 || len(k.args) == 1 && k.args[0].known && (k.args[0].val == "-l" || k.args[0].val == "--show" || k.args[0].val == "-s" || k.args[0].val == "--summary") {
			k.add(Safe, "lists mounts")
			return
		}
	case "fdisk", "sfdisk", "parted", "blkid":
		for _, a := range k.args {
			if a.known && (a.val == "-l" || a.val == "--list") {
				k.add(Safe, "lists partitions")
				return
			}
		}
	case "zfs", "zpool", "btrfs":
		if len(k.args) > 0 && k.args[0].known {
			switch k.args[0].val {
			case "list", "status", "get", "iostat", "show", "history":
				k.add(Safe, "lists file systems")
				return
			}
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	if strings.HasPrefix(k.name, "mkfs") {
		k.add(Dangerous, "creates a file system, erasing what was there")
		return
	}
	k.add(Dangerous, "changes disks, partitions or file systems")
}

func ruleSysctl(k *cmd) {
	for _, a := range k.args {
		if !a.known || strings.Contains(a.val, "=") || a.val == "-w" || a.val == "--write" || a.val == "-p" || a.val == "--load" || a.val == "--system" {
			k.add(Dangerous, "changes kernel settings")
			return
		}
	}
	k.add(Safe, "prints kernel settings")
}

func ruleNetConfig(k *cmd) {
	var words []string
	for _, a := range k.args {
		if !a.known {
			k.add(Dangerous, "changes network settings")
			return
		}
		if !strings.HasPrefix(a.val, "-") {
			words = append(words, a.val)
		}
	}
	switch k.name {
	case "ip":
		if len(words) <= 1 || words[1] == "show" || words[1] == "list" || words[1] == "ls" || words[1] == "get" {
			k.add(Safe, "prints network settings")
			return
		}
	case "ifconfig", "iwconfig", "iw", "ethtool":
		if len(words) <= 1 || k.name == "iw" && (words[len(words)-1] == "info" || words[len(words)-1] == "list") {
			k.add(Safe, "prints network settings")
			return
		}
	case "route":
		if len(words) == 0 {
			k.add(Safe, "prints network settings")
			return
		}
	case "nmcli":
		if len(words) <= 1 || words[len(words)-1] == "show" || words[len(words)-1] == "list" || words[len(words)-1] == "status" {
			k.add(Safe, "prints network settings")
			return
		}
	}
	k.add(Dangerous, "changes network settings")
}

func ruleKill(k *cmd) {
	args := k.args
	if len(args) > 0 && args[0].known {
		switch v := args[0].val; {
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			k.add(Safe, "lists signals")
			return
		case v == "-s" || v == "-n" || v == "--signal":
			if len(args) > 1 {
				args = args[2:]
			} else {
				args = nil
			}
		case strings.HasPrefix(v, "-") && v != "--":
			args = args[1:] // the signal: -9, -KILL, -SIGTERM
		}
	}
	if len(args) == 0 {
		k.add(Safe, "does nothing: no process named")
		return
	}
	for _, a := range args {
		switch {
		case a.known && a.val == "--":
		case !a.known:
			k.add(Dangerous, "signals a process only known at run time: "+a.text)
			return
		case a.val == "-1":
			k.add(Dangerous, "signals every process it may")
			return
		case a.val == "0" || strings.HasPrefix(a.val, "-"):
			k.add(Dangerous, "signals a whole process group")
			return
		case a.val == "1":
			k.add(Dangerous, "signals init")
			return
		}
	}
	k.add(Moderate, "stops or signals processes")
}

func ruleKillByName(k *cmd) {
	for _, a := range k.args {
		if !a.known {
			k.add(Dangerous, "stops processes matching a name only known at run time: "+a.text)
			return
		}
		if a.val == "." || a.val == ".*" || a.val == "" || a.val == "-u" || a.val == "--user" {
			k.add(Dangerous, "stops processes wholesale")
			return
		}
	}
	k.add(Moderate, "stops processes by name")
}

func ruleCrontab(k *cmd) {
	if len(k.args) == 1 && k.args[0].known && k.args[0].val == "-l" {
		k.add(Safe, "lists scheduled jobs")
		return
	}
	k.add(Dangerous, "changes scheduled jobs")
}

func ruleHistory(k *cmd) {
	for _, a := range k.args {
		if a.known && strings.HasPrefix(a.val, "-") {
			if strings.ContainsAny(a.val, "cdw") {
				k.add(Dangerous, "erases or rewrites shell history")
				return
			}
			k.add(Moderate, "changes shell history")
			return
		}
	}
	k.add(Safe, "lists shell history")
}

func ruleUnset(k *cmd) {
	for _, a := range k.args {
		if !a.known {
			k.add(Moderate, "unsets a variable only known at run time")
			continue
		}
		switch a.val {
		case "HISTFILE", "HISTSIZE", "HISTFILESIZE":
			k.add(Dangerous, "turns off shell history")
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "unsets variables")
	}
}

func ruleSet(k *cmd) {
	for i, a := range k.args {
		if a.known && a.val == "--" {
			break
		}
		if a.known && a.val == "+o" && i+1 < len(k.args) && k.args[i+1].known && k.args[i+1].val == "history" {
			k.add(Dangerous, "turns off shell history")
			return
		}
	}
	k.add(Safe, "sets shell options")
}

func ruleTrap(k *cmd) {
	args := k.args
	if len(args) == 0 || args[0].known && (args[0].val == "-l" || args[0].val == "-p" || args[0].val == "-" || args[0].val == "") {
		k.add(Safe, "lists or clears traps")
		return
	}
	if args[0].known && args[0].val == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		k.add(Safe, "lists traps")
		return
	}
	if len(args) == 1 && args[0].known && isDigits(args[0].val) {
		k.add(Safe, "resets a trap")
		return
	}
	k.add(Safe, "sets a command to run on a signal (judged on its own)")
	k.nestedScript(args[0], "sets a trap")
}

func ruleAlias(k *cmd) {
	any := false
	for _, a := range k.args {
		if !a.known {
			k.add(Dangerous, "defines an alias only known at run time: "+a.text)
			return
		}
		if _, val, ok := strings.Cut(a.val, "="); ok {
			any = true
			k.nestedScript(literalArg(val), "defines an alias")
		}
	}
	if !any {
		k.add(Safe, "lists aliases")
		return
	}
	k.add(Moderate, "defines an alias, which changes what a name runs")
}

func ruleEnable(k *cmd) {
	if len(k.args) == 0 {
		k.add(Safe, "lists builtins")
		return
	}
	for _, a := range k.args {
		if !a.known || strings.HasPrefix(a.val, "-") && strings.ContainsAny(a.val, "fd") {
			k.add(Dangerous, "loads or removes shell builtins")
			return
		}
	}
	k.add(Moderate, "turns shell builtins on or off")
}

func ruleUmask(k *cmd) {
	for _, a := range k.args {
		if !a.known || !strings.HasPrefix(a.val, "-") {
			k.add(Moderate, "changes the permissions new files get")
			return
		}
	}
	k.add(Safe, "prints the file mode mask")
}

func ruleSystemctl(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, _ := verbAt(k.args, *k.valueOpts)
	k.r.verb = verb
	if k.verbs.Safe[verb] != "" || verb == "" {
		k.add(Safe, "shows services")
		return
	}
	k.add(Dangerous, "changes system services or the machine's state")
}

func ruleService(k *cmd) {
	ops := k.args
	if len(ops) >= 2 && ops[1].known {
		k.r.verb = ops[1].val
		if ops[1].val == "status" {
			k.add(Safe, "shows a service")
			return
		}
	}
	if len(ops) == 1 && ops[0].known && (ops[0].val == "--status-all" || ops[0].val == "--version") {
		k.add(Safe, "shows services")
		return
	}
	k.add(Dangerous, "changes system services")
}

func ruleCtlStatus(k *cmd) {
	if len(k.args) == 0 {
		k.add(Safe, "shows settings")
		return
	}
	if v, _ := verbAt(k.args, spec{}); v == "status" || v == "show" || strings.HasPrefix(v, "list") {
		k.r.verb = v
		k.add(Safe, "shows settings")
		return
	}
	k.add(Dangerous, "changes system settings")
}

func ruleDmesg(k *cmd) {
	for _, a := range k.args {
		if a.known && strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.ContainsAny(a.val, "cCDEn") ||
			a.known && (a.val == "--clear" || a.val == "--read-clear" || a.val == "--console-off" || a.val == "--console-on" || strings.HasPrefix(a.val, "--console-level")) {
			k.add(Dangerous, "changes the kernel log")
			return
		}
	}
	k.add(Safe, "reads the kernel log")
}
