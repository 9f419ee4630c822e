package shell

import (
	"strings"
)

// Build tools, package managers and other programs with subcommands.

func ruleGo(k *cmd) {
	if len(k.args) == 0 || onlyInfo(k.args) {
		k.add(Safe, "prints help")
		return
	}
	verb := k.args[0].val
	if !k.args[0].known {
		k.add(Dangerous, "the go verb is only known at run time: "+k.args[0].text)
		return
	}
	k.r.verb = verb
	rest := k.args[1:]
	// Flags are single-dash words; -name=value or -name value.
	flag := func(name string) (arg, bool) {
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if !a.known {
				continue
			}
			v := strings.TrimPrefix(a.val, "-")
			if v == a.val {
				continue
			}
			v = strings.TrimPrefix(v, "-")
			if v == name {
				if i+1 < len(rest) {
					return rest[i+1], true
				}
				return arg{}, true
			}
			if strings.HasPrefix(v, name+"=") {
				return literalArg(v[len(name)+1:]), true
			}
		}
		return arg{}, false
	}
	has := func(name string) bool { _, ok := flag(name); return ok }
	if v, ok := flag("toolexec"); ok {
		k.add(Moderate, "-toolexec runs a program around every tool")
		k.nestedScript(v, "runs a command")
	}
	if v, ok := flag("exec"); ok && (verb == "run" || verb == "test") {
		k.add(Moderate, "-exec runs the program through another")
		k.nestedScript(v, "runs a command")
	}
	if v, ok := flag("C"); ok {
		if pl, shown := k.c.where(k.x.f, v); pl != placeWorkspace && pl != placeTemp {
			k.add(Moderate, "works in another directory: "+shown)
		}
	}
	switch verb {
	case "build", "vet", "list", "doc", "version", "env", "help":
		if verb == "env" && (has("w") || has("u")) {
			k.add(Moderate, "changes Go's settings")
			return
		}
		if verb == "list" && has("u") && has("m") {
			k.add(Moderate, "reaches the network")
			return
		}
		for _, name := range []string{"o", "coverprofile", "cpuprofile", "memprofile", "trace"} {
			if v, ok := flag(name); ok {
				k.writeInside(v, "writes the build output into")
			}
		}
		if len(k.r.reasons) == 0 {
			k.add(Safe, "builds or inspects Go code without running it")
		}
	case "fmt", "fix":
		if has("n") {
			k.add(Safe, "prints what it would do")
			return
		}
		k.add(Moderate, "rewrites Go source files")
	case "test", "run":
		for _, name := range []string{"o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir"} {
			if v, ok := flag(name); ok {
				k.write(v)
			}
		}
		if verb == "test" {
			k.add(Moderate, "runs tests, which run project code")
		} else {
			k.add(Moderate, "runs a program")
		}
	case "generate":
		k.add(Moderate, "runs commands named in source comments")
	case "get", "install":
		k.r.fl.net = true
		k.add(Moderate, "downloads and installs modules")
	case "mod":
		sub := ""
		if len(rest) > 0 && rest[0].known {
			sub = rest[0].val
		}
		switch sub {
		case "graph", "why", "verify":
			k.add(Safe, "inspects modules")
		default:
			k.r.fl.net = true
			k.add(Moderate, "changes or downloads modules")
		}
	case "clean":
		k.add(Moderate, "deletes build output")
	case "work":
		k.add(Moderate, "changes the workspace file")
	case "tool":
		k.add(Moderate, "runs a Go tool")
	default:
		k.add(Moderate, "runs the go command")
	}
}

func ruleFormatter(k *cmd) {
	for _, a := range k.args {
		if !a.known {
			continue
		}
		switch a.val {
		case "-w", "-i", "--in-place", "--write", "--fix", "-fix":
			k.add(Moderate, "rewrites files")
			return
		}
	}
	switch k.name {
	case "black", "autopep8", "yapf", "isort", "rustfmt":
		for _, a := range k.args {
			if a.known && (a.val == "--check" || a.val == "--diff" || a.val == "-d" || a.val == "--version") {
				k.add(Safe, "checks formatting")
				return
			}
		}
		if k.name == "black" || k.name == "isort" || k.name == "rustfmt" {
			k.add(Moderate, "rewrites files")
			return
		}
	}
	k.add(Safe, "prints formatted code")
}

func ruleCargo(k *cmd) {
	sp := spec{shortVal: "ZC", longVal: []string{"config", "color", "manifest-path"}}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	rest := []arg{}
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	switch verb {
	case "", "version", "help", "locate-project", "pkgid", "read-manifest", "verify-project":
		k.add(Safe, "prints project information")
	case "fmt":
		for _, a := range rest {
			if a.known && a.val == "--check" {
				k.add(Safe, "checks formatting")
				return
			}
		}
		k.add(Moderate, "rewrites source files")
	case "publish", "yank", "owner", "login", "logout":
		k.r.fl.net = true
		k.add(Dangerous, "publishes to or changes a package registry")
	case "install", "uninstall", "add", "remove", "update", "fetch", "search", "generate-lockfile", "vendor":
		k.r.fl.net = true
		k.add(Moderate, "downloads or installs crates")
	default:
		k.add(Moderate, "builds or runs project code (build scripts and macros run)")
	}
}

var npmSafe = reasons("prints package information", "ls", "list", "ll", "la", "help", "root", "prefix", "bin",
	"explain", "why", "get", "-v", "--version", "help-search", "completion")
var npmDanger = reasons("publishes to or changes a package registry or its credentials", "publish", "unpublish",
	"deprecate", "dist-tag", "owner", "access", "adduser", "add-user", "login", "logout", "token", "team", "org", "star",
	"unstar", "hook", "undeprecate", "trust")

func ruleNpm(k *cmd) {
	sp := spec{shortVal: "wC", longVal: []string{"prefix", "workspace", "registry", "userconfig", "cache", "loglevel"}}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	switch {
	case npmDanger[verb] != "":
		k.r.fl.net = true
		k.add(Dangerous, npmDanger[verb])
	case npmSafe[verb] != "":
		k.add(Safe, npmSafe[verb])
	case verb == "config" || verb == "c":
		if len(rest) > 0 && rest[0].known && (rest[0].val == "get" || rest[0].val == "list" || rest[0].val == "ls") {
			k.add(Safe, "reads npm configuration")
			return
		}
		k.add(Moderate, "changes npm configuration")
	case verb == "version" && len(rest) == 0:
		k.add(Safe, "prints versions")
	case verb == "view" || verb == "info" || verb == "show" || verb == "v" || verb == "outdated" || verb == "search" || verb == "audit" && len(rest) == 0 || verb == "ping" || verb == "doctor":
		k.r.fl.net = true
		k.add(Moderate, "reaches the package registry")
	case verb == "install" || verb == "i" || verb == "ci" || verb == "add" || verb == "update" || verb == "up" || verb == "uninstall" || verb == "rm" || verb == "remove" || verb == "un" || verb == "audit":
		k.r.fl.net = true
		k.add(Moderate, "installs or removes packages (install scripts run)")
	case verb == "exec" || verb == "x":
		k.add(Moderate, "downloads and runs a package")
	default:
		k.add(Moderate, "runs package scripts, which run project code")
	}
}

func ruleYarn(k *cmd) {
	sp := spec{shortVal: "C", longVal: []string{"cwd", "dir", "filter", "workspace"}}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	switch verb {
	case "list", "ls", "ll", "why", "help", "root", "bin", "--version", "-v":
		k.add(Safe, "prints package information")
	case "config":
		if len(rest) > 0 && rest[0].known && (rest[0].val == "get" || rest[0].val == "list") {
			k.add(Safe, "reads configuration")
			return
		}
		k.add(Moderate, "changes configuration")
	case "publish", "login", "logout", "owner", "unpublish", "npm":
		if verb == "npm" && !(len(rest) > 0 && rest[0].known && (rest[0].val == "publish" || rest[0].val == "login" || rest[0].val == "logout")) {
			k.add(Moderate, "talks to the package registry")
			k.r.fl.net = true
			return
		}
		k.r.fl.net = true
		k.add(Dangerous, "publishes to or changes a package registry")
	case "dlx":
		k.add(Moderate, "downloads and runs a package")
	case "", "install", "i", "add", "remove", "upgrade", "up", "update", "import":
		k.r.fl.net = true
		k.add(Moderate, "installs or removes packages (install scripts run)")
	default:
		k.add(Moderate, "runs package scripts, which run project code")
	}
}

func rulePip(k *cmd) {
	sp := spec{longVal: []string{"python", "log", "proxy", "retries", "timeout", "exists-action", "trusted-host", "cert", "client-cert", "cache-dir"}}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	switch verb {
	case "list", "show", "freeze", "check", "help", "debug", "inspect", "":
		k.add(Safe, "prints package information")
	case "config", "cache":
		if len(rest) > 0 && rest[0].known && (rest[0].val == "list" || rest[0].val == "get" || rest[0].val == "dir" || rest[0].val == "info" || rest[0].val == "debug") {
			k.add(Safe, "prints configuration")
			return
		}
		k.add(Moderate, "changes pip's configuration or cache")
	case "install", "download", "wheel", "index", "search":
		k.r.fl.net = true
		k.add(Moderate, "downloads or installs packages (setup scripts run)")
	case "uninstall":
		k.add(Moderate, "removes packages")
	default:
		k.add(Moderate, "runs pip")
	}
}

func ruleUv(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, spec{longVal: []string{"directory", "project", "cache-dir", "python", "color", "config-file"}})
	k.r.verb = verb
	switch verb {
	case "pip":
		rulePip(&cmd{c: k.c, x: k.x, name: "pip", args: k.args[i+1:], r: k.r, hops: k.hops})
		k.r.verb = "pip " + k.r.verb
	case "publish":
		k.r.fl.net = true
		k.add(Dangerous, "publishes to a package registry")
	case "version", "help", "tree":
		k.add(Safe, "prints project information")
	default:
		k.add(Moderate, "installs packages or runs project code")
	}
}

func rulePyProject(k *cmd) {
	sp := spec{shortVal: "C", longVal: []string{"directory", "project"}}
	subcommands(sp,
		reasons("prints project information", "show", "check", "list", "info", "version", "--version", "env", "search", "help"),
		reasons("publishes to a package registry", "publish", "upload"),
		"installs packages or runs project code")(k)
}

func ruleGem(k *cmd) {
	subcommands(spec{},
		reasons("prints package information", "list", "query", "spec", "specification", "contents", "which", "env",
			"help", "check", "show", "outdated", "licenses", "validate", "dependency", "info"),
		reasons("publishes to or changes a package registry", "push", "yank", "owner", "signin", "signout", "publish"),
		"installs packages or runs project code")(k)
}

func ruleMake(k *cmd) {
	sp := spec{shortVal: "CfIjloW", longVal: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "old-file", "what-if", "assume-old", "assume-new", "new-file", "eval"}}
	if onlyInfo(k.args) || len(k.args) == 1 && k.args[0].known && k.args[0].val == "-v" {
		k.add(Safe, "prints version or help")
		return
	}
	opts, ops := sp.scan(k.args)
	for _, o := range ops {
		if o.known && !strings.Contains(o.val, "=") {
			k.r.verb = o.val
			break
		}
	}
	if hasOpt(opts, "--eval") {
		k.add(Moderate, "evaluates make code from its options")
	}
	k.add(Moderate, "runs the recipes of a makefile, which run commands")
}

var dockerSafe = set("ps", "images", "inspect", "logs", "version", "info", "stats", "top", "port", "history", "diff",
	"events", "search", "help")
var dockerDanger = reasons("destroys containers, images or volumes", "rm", "rmi", "kill", "prune")

func ruleDocker(k *cmd) {
	sp := spec{shortVal: "cHl", longVal: []string{"context", "host", "config", "log-level", "tlscacert", "tlscert", "tlskey"}}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].known {
		sub = rest[0].val
	}
	switch {
	case dockerSafe[verb]:
		k.add(Safe, "inspects containers")
		if verb == "search" {
			k.r.fl.net = true
			k.add(Moderate, "reaches the network")
		}
	case dockerDanger[verb] != "":
		k.add(Dangerous, dockerDanger[verb])
	case verb == "push" || verb == "login" || verb == "logout":
		k.r.fl.net = true
		k.add(Dangerous, "publishes images or changes registry credentials")
	case verb == "system" && sub == "prune", verb == "volume" && (sub == "rm" || sub == "prune"),
		verb == "image" && (sub == "rm" || sub == "prune"), verb == "container" && (sub == "rm" || sub == "prune" || sub == "kill"),
		verb == "network" && (sub == "rm" || sub == "prune"), verb == "builder" && sub == "prune",
		verb == "compose" && (sub == "rm" || sub == "kill"):
		k.add(Dangerous, "destroys containers, images or volumes")
	case verb == "compose" && sub == "down":
		for _, a := range rest {
			if a.known && (a.val == "-v" || a.val == "--volumes" || a.val == "--rmi") {
				k.add(Dangerous, "destroys volumes or images")
				return
			}
		}
		k.add(Moderate, "stops containers")
	case (verb == "compose" || verb == "container" || verb == "image" || verb == "volume" || verb == "network" ||
		verb == "context" || verb == "system" || verb == "buildx" || verb == "manifest") &&
		(sub == "ls" || sub == "ps" || sub == "logs" || sub == "config" || sub == "images" || sub == "top" ||
			sub == "version" || sub == "inspect" || sub == "show" || sub == "df" || sub == "info" || sub == "list" || sub == "history" || sub == "port"):
		k.add(Safe, "inspects containers")
	default:
		if verb == "run" || verb == "create" || verb == "container" && (sub == "run" || sub == "create") || verb == "compose" {
			k.dockerRun(rest)
		}
		k.r.fl.net = k.r.fl.net || verb == "pull" || verb == "build" || verb == "run"
		k.add(Moderate, "runs or changes containers")
	}
}

// dockerRun looks for the options that hand a container the host.
func (k *cmd) dockerRun(args []arg) {
	for i, a := range args {
		if !a.known {
			continue
		}
		v := a.val
		val := ""
		if j := strings.IndexByte(v, '='); j >= 0 {
			v, val = v[:j], v[j+1:]
		} else if i+1 < len(args) && args[i+1].known {
			val = args[i+1].val
		}
		switch v {
		case "--privileged":
			k.add(Dangerous, "runs a privileged container, which controls the host")
		case "--cap-add", "--device", "--security-opt":
			k.add(Dangerous, "gives a container host capabilities or devices")
		case "--pid", "--userns", "--uts", "--ipc", "--cgroupns":
			if val == "host" {
				k.add(Dangerous, "shares the host's namespaces with a container")
			}
		case "-v", "--volume", "--mount":
			src := val
			if v == "--mount" {
				for _, f := range strings.Split(val, ",") {
					if s, ok := strings.CutPrefix(f, "source="); ok {
						src = s
					} else if s, ok := strings.CutPrefix(f, "src="); ok {
						src = s
					}
				}
			} else {
				src, _, _ = strings.Cut(val, ":")
			}
			if strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, ".") {
				b := literalArg(src)
				b.home = strings.HasPrefix(src, "~")
				if pl, shown := k.c.where(k.x.f, b); pl != placeWorkspace && pl != placeTemp {
					k.add(Dangerous, "mounts a host path outside the workspace into a container: "+shown)
				}
			}
		}
	}
}

func ruleKubectl(k *cmd) {
	sp := spec{shortVal: "ns", longVal: []string{"namespace", "context", "kubeconfig", "server", "cluster", "user", "token", "as", "as-group", "request-timeout"}}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	k.r.fl.net = true
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	switch verb {
	case "delete", "drain", "cordon", "taint", "replace", "certificate":
		k.add(Dangerous, "deletes or disrupts cluster resources")
		return
	case "get", "describe":
		for _, a := range rest {
			if a.known && (a.val == "secret" || a.val == "secrets" || strings.HasPrefix(a.val, "secret/") || strings.HasPrefix(a.val, "secrets/")) {
				k.add(Dangerous, "reads cluster secrets")
				return
			}
		}
	case "version", "explain", "api-resources", "api-versions", "completion", "help", "plugin":
		k.r.fl.net = false
		k.add(Safe, "prints information")
		return
	}
	switch verb {
	case "get", "describe", "logs", "top", "cluster-info", "auth", "diff", "events", "config", "wait":
		k.add(Moderate, "reads from a cluster over the network")
	default:
		k.add(Moderate, "changes cluster resources")
	}
}

func ruleHelm(k *cmd) {
	subcommands(spec{shortVal: "n", longVal: []string{"namespace", "kube-context", "kubeconfig"}},
		reasons("prints chart information", "template", "lint", "version", "env", "help", "completion", "show", "package", "dependency"),
		reasons("deletes releases", "uninstall", "delete", "del", "un", "rollback"),
		"changes releases in a cluster")(k)
	k.r.fl.net = true
}

func ruleTerraform(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, spec{longVal: []string{"chdir"}})
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].known {
		sub = rest[0].val
	}
	for _, a := range rest {
		if a.known && (a.val == "-destroy" || a.val == "--destroy") {
			k.add(Dangerous, "destroys infrastructure")
			return
		}
	}
	switch {
	case verb == "destroy" || verb == "force-unlock" || verb == "state" && (sub == "rm" || sub == "push" || sub == "replace-provider") || verb == "workspace" && sub == "delete":
		k.add(Dangerous, "destroys infrastructure or its state")
	case verb == "version" || verb == "validate" || verb == "fmt" && hasDashOpt(rest, "-check") || verb == "providers" || verb == "graph" || verb == "state" && (sub == "list" || sub == "show") || verb == "show":
		k.add(Safe, "prints infrastructure information")
	case verb == "apply":
		k.r.fl.net = true
		k.add(Moderate, "changes infrastructure")
	default:
		k.r.fl.net = true
		k.add(Moderate, "plans or changes infrastructure")
	}
}

func hasDashOpt(args []arg, name string) bool {
	for _, a := range args {
		if a.known && (a.val == name || strings.HasPrefix(a.val, name+"=")) {
			return true
		}
	}
	return false
}

func ruleGh(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, spec{shortVal: "R", longVal: []string{"repo", "hostname"}})
	k.r.verb = verb
	k.r.fl.net = true
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].known {
		sub = rest[0].val
	}
	switch {
	case verb == "auth" && (sub == "token" || hasDashOpt(rest, "--show-token") || hasDashOpt(rest, "-t")),
		verb == "secret", verb == "ssh-key", verb == "gpg-key", verb == "variable" && sub != "list":
		k.add(Dangerous, "reads or changes credentials")
	case sub == "delete" || sub == "archive" || verb == "repo" && sub == "rename" || verb == "api" && (hasDashOpt(rest, "-X") || hasDashOpt(rest, "--method")):
		k.add(Dangerous, "deletes or changes repositories on the server")
	default:
		k.add(Moderate, "talks to the code host")
	}
}

func ruleApt(k *cmd) {
	subcommands(spec{shortVal: "oct", longVal: []string{"option", "config-file", "target-release"}},
		reasons("queries packages", "list", "show", "search", "policy", "depends", "rdepends", "showpkg", "showsrc", "madison", "help", "changelog"),
		reasons("removes system packages", "remove", "purge", "autoremove", "autopurge"),
		"installs or updates system packages")(k)
	if k.r.lvl >= Moderate {
		k.r.fl.net = true
	}
}

func ruleDpkg(k *cmd) {
	for _, a := range k.args {
		if !a.known {
			continue
		}
		switch a.val {
		case "-r", "--remove", "-P", "--purge", "--force-all", "--force-remove-essential":
			k.add(Dangerous, "removes system packages")
			return
		case "-i", "--install", "--unpack", "--configure", "--set-selections", "-x", "--extract", "-b", "--build":
			k.add(Moderate, "installs or unpacks packages")
			return
		}
	}
	k.add(Safe, "queries packages")
}

func ruleYum(k *cmd) {
	subcommands(spec{shortVal: "cdeR", longVal: []string{"config", "installroot", "releasever", "setopt", "repo", "enablerepo", "disablerepo"}},
		reasons("queries packages", "list", "info", "search", "provides", "whatprovides", "repolist", "check-update",
			"deplist", "repoquery", "help", "history", "se", "if", "lr", "pa", "packages", "repos", "search-packages", "what-provides"),
		reasons("removes system packages", "remove", "erase", "autoremove", "groupremove", "rm", "remove-pattern"),
		"installs or updates system packages")(k)
}

func ruleApk(k *cmd) {
	subcommands(spec{shortVal: "pX", longVal: []string{"root", "repository", "keys-dir", "cache-dir", "arch"}},
		reasons("queries packages", "info", "search", "list", "policy", "version", "stats", "dot", "manifest", "audit", "verify"),
		reasons("removes system packages", "del"),
		"installs or updates system packages")(k)
}

func rulePacman(k *cmd) {
	for _, a := range k.args {
		if !a.known || !strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "--") {
			continue
		}
		switch a.val[1] {
		case 'R':
			k.add(Dangerous, "removes system packages")
			return
		case 'Q', 'F', 'T':
			k.add(Safe, "queries packages")
			return
		case 'S':
			if strings.ContainsAny(a.val[2:], "si") && !strings.ContainsAny(a.val[2:], "uy") {
				k.add(Safe, "queries packages")
				return
			}
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "installs or updates system packages")
}

func ruleRpm(k *cmd) {
	for _, a := range k.args {
		if !a.known || !strings.HasPrefix(a.val, "-") {
			continue
		}
		switch {
		case a.val == "-e" || a.val == "--erase" || strings.HasPrefix(a.val, "-e") && !strings.HasPrefix(a.val, "--"):
			k.add(Dangerous, "removes system packages")
			return
		case strings.HasPrefix(a.val, "-q") || a.val == "--query" || a.val == "-V" || a.val == "--verify":
			k.add(Safe, "queries packages")
			return
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "installs or updates system packages")
}

func ruleBrew(k *cmd) {
	subcommands(spec{},
		reasons("queries packages", "list", "ls", "info", "search", "config", "doctor", "deps", "uses", "leaves",
			"outdated", "desc", "--prefix", "--cellar", "--repository", "--cache", "--env", "home", "commands", "help", "tap-info"),
		nil,
		"installs, updates or removes packages")(k)
}

func ruleSnap(k *cmd) {
	subcommands(spec{},
		reasons("queries packages", "list", "info", "find", "search", "version", "connections", "services", "changes", "history", "remotes"),
		reasons("removes packages", "remove", "uninstall"),
		"installs or updates packages")(k)
}

func ruleCompiler(k *cmd) {
	for i, a := range k.args {
		if !a.known {
			continue
		}
		switch {
		case a.val == "--noEmit" && k.name == "tsc":
			k.add(Safe, "type-checks without writing")
			return
		case a.val == "-o" || a.val == "--outfile" || a.val == "--outDir" || a.val == "--out-dir" || a.val == "-d" && k.name == "javac":
			if i+1 < len(k.args) {
				k.write(k.args[i+1])
			}
		case strings.HasPrefix(a.val, "-o") && len(a.val) > 2 && k.name != "tsc":
			k.write(literalArg(a.val[2:]))
		case strings.HasPrefix(a.val, "--outfile=") || strings.HasPrefix(a.val, "--outdir="):
			_, v, _ := strings.Cut(a.val, "=")
			k.write(literalArg(v))
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "compiles code and writes the output")
}

func ruleYq(k *cmd) {
	for _, a := range k.args {
		if a.known && (a.val == "-i" || a.val == "--inplace" || strings.HasPrefix(a.val, "-i") && !strings.HasPrefix(a.val, "--") && len(a.val) <= 3) {
			k.add(Moderate, "edits files in place")
			return
		}
	}
	k.add(Safe, "filters YAML")
}
