package unix

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

// Programs that change the machine rather than files: disks, services,
// processes, the shell's own state.

func ruleDisk(k *cmd) {
	switch k.Name {
	case "mount", "swapon":
		if len(k.Args) == 0 || len(k.Args) == 1 && k.Args[0].Known && (k.Args[0].Val == "-l" || k.Args[0].Val == "--show" || k.Args[0].Val == "-s" || k.Args[0].Val == "--summary") {
			k.Add(Safe, "lists mounts")
			return
		}
	case "fdisk", "sfdisk", "parted", "blkid":
		for _, a := range k.Args {
			if a.Known && (a.Val == "-l" || a.Val == "--list") {
				k.Add(Safe, "lists partitions")
				return
			}
		}
	case "zfs", "zpool", "btrfs":
		if len(k.Args) > 0 && k.Args[0].Known {
			switch k.Args[0].Val {
			case "list", "status", "get", "iostat", "show", "history":
				k.Add(Safe, "lists file systems")
				return
			}
		}
	}
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	if strings.HasPrefix(k.Name, "mkfs") {
		k.Add(Dangerous, "creates a file system, erasing what was there")
		return
	}
	k.Add(Dangerous, "changes disks, partitions or file systems")
}

func ruleSysctl(k *cmd) {
	for _, a := range k.Args {
		if !a.Known || strings.Contains(a.Val, "=") || a.Val == "-w" || a.Val == "--write" || a.Val == "-p" || a.Val == "--load" || a.Val == "--system" {
			k.Add(Dangerous, "changes kernel settings")
			return
		}
	}
	k.Add(Safe, "prints kernel settings")
}

func ruleNetConfig(k *cmd) {
	var words []string
	for _, a := range k.Args {
		if !a.Known {
			k.Add(Dangerous, "changes network settings")
			return
		}
		if !strings.HasPrefix(a.Val, "-") {
			words = append(words, a.Val)
		}
	}
	switch k.Name {
	case "ip":
		if len(words) <= 1 || words[1] == "show" || words[1] == "list" || words[1] == "ls" || words[1] == "get" {
			k.Add(Safe, "prints network settings")
			return
		}
	case "ifconfig", "iwconfig", "iw", "ethtool":
		if len(words) <= 1 || k.Name == "iw" && (words[len(words)-1] == "info" || words[len(words)-1] == "list") {
			k.Add(Safe, "prints network settings")
			return
		}
	case "route":
		if len(words) == 0 {
			k.Add(Safe, "prints network settings")
			return
		}
	case "nmcli":
		if len(words) <= 1 || words[len(words)-1] == "show" || words[len(words)-1] == "list" || words[len(words)-1] == "status" {
			k.Add(Safe, "prints network settings")
			return
		}
	}
	k.Add(Dangerous, "changes network settings")
}

func ruleKill(k *cmd) {
	args := k.Args
	if len(args) > 0 && args[0].Known {
		switch v := args[0].Val; {
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			k.Add(Safe, "lists signals")
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
		k.Add(Safe, "does nothing: no process named")
		return
	}
	for _, a := range args {
		switch {
		case a.Known && a.Val == "--":
		case !a.Known:
			k.Add(Dangerous, "signals a process only known at run time: "+a.Text)
			return
		case a.Val == "-1":
			k.Add(Dangerous, "signals every process it may")
			return
		case a.Val == "0" || strings.HasPrefix(a.Val, "-"):
			k.Add(Dangerous, "signals a whole process group")
			return
		case a.Val == "1":
			k.Add(Dangerous, "signals init")
			return
		}
	}
	k.Add(Moderate, "stops or signals processes")
}

func ruleKillByName(k *cmd) {
	for _, a := range k.Args {
		if !a.Known {
			k.Add(Dangerous, "stops processes matching a name only known at run time: "+a.Text)
			return
		}
		if a.Val == "." || a.Val == ".*" || a.Val == "" || a.Val == "-u" || a.Val == "--user" {
			k.Add(Dangerous, "stops processes wholesale")
			return
		}
	}
	k.Add(Moderate, "stops processes by name")
}

func ruleCrontab(k *cmd) {
	if len(k.Args) == 1 && k.Args[0].Known && k.Args[0].Val == "-l" {
		k.Add(Safe, "lists scheduled jobs")
		return
	}
	k.Add(Dangerous, "changes scheduled jobs")
}

func ruleHistory(k *cmd) {
	for _, a := range k.Args {
		if a.Known && strings.HasPrefix(a.Val, "-") {
			if strings.ContainsAny(a.Val, "cdw") {
				k.Add(Dangerous, "erases or rewrites shell history")
				return
			}
			k.Add(Moderate, "changes shell history")
			return
		}
	}
	k.Add(Safe, "lists shell history")
}

func ruleUnset(k *cmd) {
	for _, a := range k.Args {
		if !a.Known {
			k.Add(Moderate, "unsets a variable only known at run time")
			continue
		}
		switch a.Val {
		case "HISTFILE", "HISTSIZE", "HISTFILESIZE":
			k.Add(Dangerous, "turns off shell history")
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "unsets variables")
	}
}

func ruleSet(k *cmd) {
	for i, a := range k.Args {
		if a.Known && a.Val == "--" {
			break
		}
		if a.Known && a.Val == "+o" && i+1 < len(k.Args) && k.Args[i+1].Known && k.Args[i+1].Val == "history" {
			k.Add(Dangerous, "turns off shell history")
			return
		}
	}
	k.Add(Safe, "sets shell options")
}

func ruleTrap(k *cmd) {
	args := k.Args
	if len(args) == 0 || args[0].Known && (args[0].Val == "-l" || args[0].Val == "-p" || args[0].Val == "-" || args[0].Val == "") {
		k.Add(Safe, "lists or clears traps")
		return
	}
	if args[0].Known && args[0].Val == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		k.Add(Safe, "lists traps")
		return
	}
	if len(args) == 1 && args[0].Known && judge.IsDigits(args[0].Val) {
		k.Add(Safe, "resets a trap")
		return
	}
	k.Add(Safe, "sets a command to run on a signal (judged on its own)")
	k.NestedScript(args[0], "sets a trap")
}

func ruleAlias(k *cmd) {
	any := false
	for _, a := range k.Args {
		if !a.Known {
			k.Add(Dangerous, "defines an alias only known at run time: "+a.Text)
			return
		}
		if _, val, ok := strings.Cut(a.Val, "="); ok {
			any = true
			k.NestedScript(judge.LiteralArg(val), "defines an alias")
		}
	}
	if !any {
		k.Add(Safe, "lists aliases")
		return
	}
	k.Add(Moderate, "defines an alias, which changes what a name runs")
}

func ruleEnable(k *cmd) {
	if len(k.Args) == 0 {
		k.Add(Safe, "lists builtins")
		return
	}
	for _, a := range k.Args {
		if !a.Known || strings.HasPrefix(a.Val, "-") && strings.ContainsAny(a.Val, "fd") {
			k.Add(Dangerous, "loads or removes shell builtins")
			return
		}
	}
	k.Add(Moderate, "turns shell builtins on or off")
}

func ruleUmask(k *cmd) {
	for _, a := range k.Args {
		if !a.Known || !strings.HasPrefix(a.Val, "-") {
			k.Add(Moderate, "changes the permissions new files get")
			return
		}
	}
	k.Add(Safe, "prints the file mode mask")
}

func ruleSystemctl(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	verb, _ := judge.VerbAt(k.Args, *k.ValueOpts)
	k.R.Verb = verb
	if k.Verbs.Safe[verb] != "" || verb == "" {
		k.Add(Safe, "shows services")
		return
	}
	k.Add(Dangerous, "changes system services or the machine's state")
}

func ruleService(k *cmd) {
	ops := k.Args
	if len(ops) >= 2 && ops[1].Known {
		k.R.Verb = ops[1].Val
		if ops[1].Val == "status" {
			k.Add(Safe, "shows a service")
			return
		}
	}
	if len(ops) == 1 && ops[0].Known && (ops[0].Val == "--status-all" || ops[0].Val == "--version") {
		k.Add(Safe, "shows services")
		return
	}
	k.Add(Dangerous, "changes system services")
}

func ruleCtlStatus(k *cmd) {
	if len(k.Args) == 0 {
		k.Add(Safe, "shows settings")
		return
	}
	if v, _ := judge.VerbAt(k.Args, judge.Spec{}); v == "status" || v == "show" || strings.HasPrefix(v, "list") {
		k.R.Verb = v
		k.Add(Safe, "shows settings")
		return
	}
	k.Add(Dangerous, "changes system settings")
}

func ruleDmesg(k *cmd) {
	for _, a := range k.Args {
		if a.Known && strings.HasPrefix(a.Val, "-") && !strings.HasPrefix(a.Val, "--") && strings.ContainsAny(a.Val, "cCDEn") ||
			a.Known && (a.Val == "--clear" || a.Val == "--read-clear" || a.Val == "--console-off" || a.Val == "--console-on" || strings.HasPrefix(a.Val, "--console-level")) {
			k.Add(Dangerous, "changes the kernel log")
			return
		}
	}
	k.Add(Safe, "reads the kernel log")
}
