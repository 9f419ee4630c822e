package shell

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// Git. Most verbs only read; some write the repository (moderate, undone
// through git itself); a few destroy work that git cannot give back, or
// rewrite what others share (dangerous). Options can make even a reading
// verb write a file (--output) or run a program (-c core.pager=...).

// gitKey judges one -c KEY=VALUE.
func (k *cmd) gitKey(kv arg, how string) {
	if !kv.known {
		k.add(Dangerous, how+" sets configuration only known at run time: "+kv.text)
		return
	}
	key, val, _ := strings.Cut(kv.val, "=")
	key = strings.ToLower(key)
	if strings.HasPrefix(key, "pager.") || key == "core.pager" {
		switch strings.TrimSpace(val) {
		case "", "false", "true", "cat", "less", "less -r", "less -fr", "less -frx", "more":
			return
		}
	}
	// Which keys show and which run is data: rules/gitkeys.rules.
	switch rules.DefaultGitKeys().Judge(key) {
	case rules.GitKeyShows:
		return
	case rules.GitKeyRuns:
		k.add(Dangerous, how+" sets "+key+", which can make git run programs or send data")
		return
	}
	k.add(Moderate, how+" sets "+key+", which changes how git behaves")
}

// gitPlace is where git's global options point it: the repository
// directory when known, and the option that moved it elsewhere as given.
type gitPlace struct {
	dir       string
	dirKnown  bool
	elsewhere string // -C, --git-dir, --work-tree or --bare, as given
}

func ruleGit(k *cmd) {
	args := k.args
	place := gitPlace{dir: k.x.f.cwd, dirKnown: k.x.f.cwd != ""}
	i, done := k.gitGlobals(args, &place)
	if done {
		return
	}
	if i >= len(args) {
		if len(k.r.reasons) == 0 {
			k.add(Safe, "prints help")
		}
		return
	}
	// Another repository or work tree brings its own configuration, which
	// may have been written by a command here and can make even a reading
	// verb run programs (core.fsmonitor, hooks, textconv), as GIT_DIR does.
	defer func() {
		if place.elsewhere != "" {
			k.add(Moderate, "works on another repository or work tree ("+place.elsewhere+"), whose configuration can make git run programs")
		}
	}()
	verb := args[i].val
	rest := args[i+1:]
	k.r.verb = verb
	if k.verbs.NetworkVerbs[verb] {
		k.r.fl.net = true
	}
	outside := false
	if !place.dirKnown {
		outside = true
	} else if pl, _ := k.c.where(k.x.f, literalArg(place.dir)); pl != placeWorkspace && pl != placeTemp {
		outside = true
	}
	k.gitVerb(verb, rest)
	if outside && k.r.lvl == Moderate {
		k.add(Dangerous, "changes a repository outside the workspace")
	}
}

// gitGlobals judges git's options before the verb and returns the verb's
// index; done says the options alone settled the verdict.
func (k *cmd) gitGlobals(args []arg, place *gitPlace) (i int, done bool) {
	for ; i < len(args); i++ {
		a := args[i]
		if !a.known {
			k.add(Dangerous, "a git option or verb is only known at run time: "+a.text)
			return i, true
		}
		v := a.val
		next := func() arg {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return arg{}
		}
		switch {
		case v == "-c":
			k.gitKey(next(), "git -c")
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			k.gitKey(literalArg(v[2:]), "git -c")
		case v == "--config-env" || strings.HasPrefix(v, "--config-env="):
			k.add(Dangerous, "--config-env sets configuration from the environment")
			if v == "--config-env" {
				next()
			}
		case v == "--exec-path" || strings.HasPrefix(v, "--exec-path="):
			if strings.HasPrefix(v, "--exec-path=") {
				k.add(Dangerous, "--exec-path makes git run its commands from another directory")
			} else if i == len(args)-1 {
				k.add(Safe, "prints git's exec path")
				return i, true
			}
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree="):
			k.gitDirOption(v, next, place)
		case v == "--bare":
			place.elsewhere = v
		case v == "--namespace" || v == "--super-prefix" || v == "--list-cmds" || v == "--attr-source":
			next()
		case v == "--version" || v == "--help" || v == "-h" || v == "--html-path" || v == "--man-path" || v == "--info-path":
			k.add(Safe, "prints git information")
			return i, true
		case strings.HasPrefix(v, "-"):
		default:
			return i, false
		}
	}
	return i, false
}

// gitDirOption follows -C, --git-dir or --work-tree (v), taking its value
// from v or from next.
func (k *cmd) gitDirOption(v string, next func() arg, place *gitPlace) {
	var d arg
	shown := v
	if _, val, ok := strings.Cut(v, "="); ok {
		d = literalArg(val)
	} else {
		d = next()
		shown = v + " " + d.text
	}
	p, ok := k.c.resolve(k.x.f, d)
	if !ok {
		place.elsewhere = shown
		place.dirKnown = false
		return
	}
	if !(v == "-C" && p == k.x.f.cwd || strings.HasPrefix(v, "--git-dir") && p == k.x.f.cwd+"/.git" ||
		strings.HasPrefix(v, "--work-tree") && p == k.x.f.cwd) {
		place.elsewhere = shown
	}
	place.dir = p
}

// gitArgs are a git verb's arguments as the verb's judgements read them.
type gitArgs struct {
	verb  string
	rest  []arg    // everything after the verb
	opts  []option // its options, with their values
	ops   []arg    // its operands
	first string   // the first operand when it is known: a sub-verb (stash drop)
}

func (g gitArgs) has(names ...string) bool { return hasOpt(g.opts, names...) }

// gitVerb judges a git verb and its arguments: first the options that
// write or run whatever the verb, then the verbs that only read, then
// the ones that change something. Verbs whose outcome the options do not
// change are in commands.rules (moderate and dangerous lines under git).
func (k *cmd) gitVerb(verb string, rest []arg) {
	opts, ops := k.valueOpts.scan(rest)
	g := gitArgs{verb: verb, rest: rest, opts: opts, ops: ops}
	if len(ops) > 0 && ops[0].known {
		g.first = ops[0].val
	}
	unknown, bad := unknownArgs(rest)
	k.gitAnyVerbOptions(g)
	if k.gitReads(g, unknown, bad) {
		return
	}
	if bad && verb != "commit" {
		k.add(Moderate, "an argument is only known at run time: "+unknown.text)
	}
	if k.gitRefsVerb(g) || k.gitTreeVerb(g) || k.gitOtherVerb(g) {
		return
	}
	switch {
	case k.verbs.Dangerous[verb] != "":
		k.add(Dangerous, k.verbs.Dangerous[verb])
	case k.verbs.Moderate[verb] != "":
		k.add(Moderate, k.verbs.Moderate[verb])
	default:
		k.add(Moderate, "not a known git verb (it may be an alias)")
	}
}

// gitAnyVerbOptions judges the options that write files or run programs,
// whatever the verb.
func (k *cmd) gitAnyVerbOptions(g gitArgs) {
	verb := g.verb
	for _, o := range g.opts {
		switch {
		case o.is("--output") && verb != "grep":
			k.write(o.val)
		case o.is("--ext-diff"):
			k.add(Moderate, "--ext-diff runs the external diff program configured")
		case len(o.name) > len("--text") && strings.HasPrefix("--textconv", o.name), o.name == "--filters":
			k.add(Moderate, o.name+" runs the conversion programs configured for the files (textconv, filters)")
		case o.is("--upload-pack", "--receive-pack") || (o.name == "-u" && (verb == "clone" || verb == "ls-remote" || verb == "fetch")):
			k.add(Dangerous, "runs a program named in its options on the remote side")
		case o.is("--exec") && verb != "rebase":
			k.add(Dangerous, "runs a program named in its options")
		case o.is("--template"):
			k.add(Dangerous, "installs hooks from a template directory")
		case o.is("--config") || o.name == "-c" && (verb == "clone" || verb == "submodule"):
			k.gitKey(o.val, "git "+verb+" --config")
		}
	}
}

// gitReads judges the verbs that only read (and grep's pager, reflog's
// and fsck's writing forms), and reports whether it has judged the verb.
func (k *cmd) gitReads(g gitArgs, unknown arg, bad bool) bool {
	switch g.verb {
	case "grep":
		if bad {
			k.add(Dangerous, "an argument only known at run time could be -O, which runs a program: "+unknown.text)
			return true
		}
		for _, o := range g.opts {
			if o.is("-O", "--open-files-in-pager") {
				if o.has && o.val.val != "" {
					k.add(Dangerous, "opens matches with a program named in its options")
				} else {
					k.add(Moderate, "opens matches in the pager")
				}
			}
		}
	case "reflog":
		if len(g.ops) > 0 && g.ops[0].known && (g.ops[0].val == "expire" || g.ops[0].val == "delete") {
			k.add(Dangerous, "erases reflog entries, the record that recovers lost commits")
			return true
		}
	case "fsck":
		if g.has("--lost-found") {
			k.add(Moderate, "writes dangling objects into .git")
		}
	}
	if k.verbs.Safe[g.verb] == "" && g.verb != "reflog" {
		return false
	}
	if bad {
		k.add(Moderate, "an argument only known at run time could be an option that writes: "+unknown.text)
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "reads the repository")
	}
	return true
}

// gitRefsVerb judges the verbs that list or change references, remotes,
// configuration and the repository's side lists (stashes, worktrees,
// notes, submodules, bisection), and reports whether it knew the verb.
func (k *cmd) gitRefsVerb(g gitArgs) bool {
	switch g.verb {
	case "branch":
		k.gitBranch(g)
	case "tag":
		switch {
		case g.has("-d", "--delete"):
			k.add(Moderate, "deletes a tag")
		case len(g.ops) > 0 && !g.has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n", "--verify", "-v"):
			k.add(Moderate, "creates a tag")
		default:
			k.add(Safe, "lists tags")
		}
	case "remote":
		switch g.first {
		case "", "show", "get-url":
			if g.first == "show" && !g.has("-n") {
				k.add(Moderate, "reaches the network")
				k.r.fl.net = true
				return true
			}
			k.r.fl.net = false
			k.add(Safe, "lists remotes")
		default:
			k.r.fl.net = false
			k.add(Moderate, "changes remotes")
		}
	case "config":
		// -f is --file here, not --force.
		k.gitConfig(gitConfigSpec.scan(g.rest))
	case "stash":
		switch g.first {
		case "list", "show":
			k.add(Safe, "lists stashes")
		case "drop", "clear":
			k.add(Dangerous, "discards stashed changes for good")
		default:
			k.add(Moderate, "stashes or restores uncommitted changes")
		}
	case "notes":
		if g.first == "" || g.first == "list" || g.first == "show" || g.first == "get-ref" {
			k.add(Safe, "reads notes")
			return true
		}
		k.add(Moderate, "changes notes")
	default:
		return k.gitSideVerb(g)
	}
	return true
}

func (k *cmd) gitBranch(g gitArgs) {
	switch {
	case g.has("-D") || g.has("-d", "--delete") && g.has("-f", "--force"):
		k.add(Moderate, "deletes a branch (its commits stay in the reflog)")
	case g.has("-d", "--delete", "-m", "--move", "-M", "-c", "--copy", "-C", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-f", "--force", "-t", "--track"):
		k.add(Moderate, "changes branches")
	case len(g.ops) > 0 && !g.has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"):
		k.add(Moderate, "creates a branch")
	default:
		k.add(Safe, "lists branches")
	}
}

// gitSideVerb judges worktree, submodule and bisect, which take a
// sub-verb and may run commands, and reports whether it knew the verb.
func (k *cmd) gitSideVerb(g gitArgs) bool {
	switch g.verb {
	case "worktree":
		switch g.first {
		case "list":
			k.add(Safe, "lists worktrees")
		case "add":
			if len(g.ops) > 1 {
				k.write(g.ops[1])
			}
			k.add(Moderate, "adds a worktree")
		case "remove":
			if g.has("-f", "--force") {
				k.add(Dangerous, "removes a worktree with uncommitted changes")
				return true
			}
			k.add(Moderate, "removes a worktree")
		default:
			k.add(Moderate, "changes worktrees")
		}
	case "submodule":
		switch g.first {
		case "", "status", "summary":
			k.r.fl.net = false
			k.add(Safe, "lists submodules")
		case "foreach":
			k.add(Moderate, "runs a command in every submodule")
			if len(g.ops) > 1 {
				k.nestedScript(literalArg(normalise(g.ops[1:])), "runs a script")
				for _, o := range g.ops[1:] {
					if !o.known {
						k.add(Dangerous, "runs a script only known at run time: "+o.text)
					}
				}
			}
		default:
			k.add(Moderate, "changes submodules")
		}
	case "bisect":
		switch g.first {
		case "log", "view", "visualize", "terms":
			k.add(Safe, "shows the bisection")
		case "run":
			k.add(Moderate, "runs a command at every step")
			k.nestedArgv(g.ops[1:])
		default:
			k.add(Moderate, "moves through history")
		}
	default:
		return false
	}
	return true
}

// gitTreeVerb judges the verbs that write files or overwrite the work
// tree, and reports whether it knew the verb.
func (k *cmd) gitTreeVerb(g gitArgs) bool {
	switch g.verb {
	case "apply":
		if g.has("--check", "--stat", "--numstat", "--summary") && !g.has("--apply") {
			k.add(Safe, "checks a patch")
			return true
		}
		if g.has("--unsafe-paths") {
			k.add(Dangerous, "applies a patch outside the work tree")
		}
		if v, ok := optVal(g.opts, "--directory"); ok {
			k.write(v)
		}
		k.add(Moderate, "applies a patch")
	case "format-patch":
		if g.has("--stdout") {
			k.add(Safe, "prints patches")
			return true
		}
		if v, ok := optVal(g.opts, "-o", "--output-directory"); ok {
			k.write(v)
		}
		k.add(Moderate, "writes patch files")
	case "archive":
		k.gitArchive(g)
	case "bundle":
		if g.first == "verify" || g.first == "list-heads" {
			k.add(Safe, "reads a bundle")
			return true
		}
		if g.first == "create" && len(g.ops) > 1 {
			k.write(g.ops[1])
		}
		k.add(Moderate, "writes a bundle")
	case "clean":
		k.gitClean(g)
	case "checkout":
		switch {
		case g.has("-f", "--force") || hasDashDash(g.rest) || g.first == "." || g.has("--ours", "--theirs", "-p", "--patch") || len(g.ops) > 1:
			k.add(Dangerous, "overwrites uncommitted changes in the work tree for good")
		default:
			k.add(Moderate, "switches branches or restores files")
		}
	case "restore":
		if (g.has("-S", "--staged") && !g.has("-W", "--worktree")) || g.has("--dry-run") {
			k.add(Moderate, "unstages changes")
			return true
		}
		k.add(Dangerous, "overwrites uncommitted changes in the work tree for good")
	case "clone":
		if len(g.ops) > 1 {
			k.write(g.ops[1])
		}
		k.add(Moderate, "downloads a repository")
	case "init":
		if len(g.ops) > 0 {
			k.write(g.ops[0])
		}
		k.add(Moderate, "creates a repository")
	default:
		return false
	}
	return true
}

func (k *cmd) gitArchive(g gitArgs) {
	if g.has("--list", "-l") {
		k.add(Safe, "lists archive formats")
		return
	}
	if v, ok := optVal(g.opts, "-o", "--output"); ok {
		k.write(v)
	}
	if g.has("--remote") {
		k.add(Moderate, "reaches the network")
		return
	}
	k.r.fl.net = false
	if !g.has("-o", "--output") && len(k.r.reasons) == 0 {
		k.add(Safe, "writes an archive to standard output")
	}
}

func (k *cmd) gitClean(g gitArgs) {
	if g.has("-n", "--dry-run") && !g.has("-f", "--force") {
		k.add(Safe, "lists untracked files")
		return
	}
	if g.has("-i", "--interactive") && !g.has("-f", "--force") {
		k.add(Moderate, "deletes untracked files it asks about")
		return
	}
	k.add(Dangerous, "deletes untracked files for good")
}

// gitOtherVerb judges the remaining verbs whose options change the
// outcome: pushing, rebasing, resetting, and the ones that run tools.
func (k *cmd) gitOtherVerb(g gitArgs) bool {
	switch g.verb {
	case "push":
		k.gitPush(g.opts, g.ops)
	case "rebase":
		if v, ok := optVal(g.opts, "-x", "--exec"); ok {
			k.add(Moderate, "runs a command after every commit")
			k.nestedScript(v, "runs a script")
		}
		k.add(Moderate, "rewrites local commits")
	case "difftool", "mergetool":
		if v, ok := optVal(g.opts, "-x", "--extcmd"); ok {
			k.nestedScript(v, "runs a script")
		}
		k.add(Moderate, "runs a diff or merge tool")
	case "gc":
		if v, ok := optVal(g.opts, "--prune"); ok && v.val == "now" {
			k.add(Dangerous, "deletes unreachable objects for good")
			return true
		}
		k.add(Moderate, "compacts the repository")
	case "hash-object":
		if g.has("-w") {
			k.add(Moderate, "writes objects into the repository")
			return true
		}
		k.add(Safe, "hashes files")
	case "symbolic-ref":
		if len(g.ops) <= 1 && !g.has("-d", "--delete") {
			k.add(Safe, "reads a reference")
			return true
		}
		k.add(Moderate, "changes a reference")
	default:
		return k.gitOptionVerb(g)
	}
	return true
}

// gitOptionVerb judges the verbs that an option makes worse, as
// commands.rules lists them ("when VERB LEVEL OPTION... : why"), and
// reports whether one of those options was given; without them the verb
// has its moderate or dangerous line.
func (k *cmd) gitOptionVerb(g gitArgs) bool {
	for _, w := range k.verbs.When[g.verb] {
		if g.has(w.Options...) {
			k.add(levelNamed(w.Level), w.Why)
			return true
		}
	}
	return false
}

func hasDashDash(args []arg) bool {
	for _, a := range args {
		if a.known && a.val == "--" {
			return true
		}
	}
	return false
}

func (k *cmd) gitPush(opts []option, ops []arg) {
	switch {
	case hasOpt(opts, "-f", "--force", "--force-with-lease", "--force-if-includes"):
		k.add(Dangerous, "force-pushes, rewriting shared history")
		return
	case hasOpt(opts, "--mirror", "--prune"):
		k.add(Dangerous, "pushes deletions of remote branches")
		return
	case hasOpt(opts, "-d", "--delete"):
		k.add(Dangerous, "deletes remote branches")
		return
	}
	for i, o := range ops {
		if i == 0 {
			continue // the remote
		}
		if !o.known {
			k.add(Dangerous, "pushes a refspec only known at run time: "+o.text)
			return
		}
		if strings.HasPrefix(o.val, "+") {
			k.add(Dangerous, "force-pushes a refspec, rewriting shared history")
			return
		}
		if strings.HasPrefix(o.val, ":") {
			k.add(Dangerous, "deletes a remote branch")
			return
		}
	}
	k.add(Moderate, "publishes commits to a remote")
}

// gitConfigSpec are git config's options that take a value.
var gitConfigSpec = spec{shortVal: "f", longVal: []string{"file", "blob", "type", "default", "comment", "value", "url"}}

func (k *cmd) gitConfig(opts []option, ops []arg) {
	has := func(names ...string) bool { return hasOpt(opts, names...) }
	switch {
	case has("-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--show-origin", "--show-scope"):
		k.add(Safe, "reads configuration")
		return
	case len(ops) > 0 && ops[0].known && (ops[0].val == "list" || ops[0].val == "get"):
		k.add(Safe, "reads configuration")
		return
	case has("-e", "--edit") || len(ops) > 0 && ops[0].known && ops[0].val == "edit":
		if v, ok := optVal(opts, "-f", "--file"); ok {
			k.write(v)
		}
		k.add(Moderate, "opens the configuration in an editor")
		return
	}
	scope := "the repository's"
	if has("--global", "--system") {
		scope = "your global"
	}
	verb := ""
	if len(ops) > 0 && ops[0].known && (ops[0].val == "set" || ops[0].val == "unset") {
		verb = ops[0].val
		ops = ops[1:]
	}
	if len(ops) == 1 && verb == "" && !has("--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") {
		k.add(Safe, "reads configuration")
		return
	}
	what := "changes " + scope + " git configuration"
	if v, ok := optVal(opts, "-f", "--file"); ok {
		k.write(v)
		what = "changes the git configuration file " + v.text
	}
	if len(ops) >= 2 {
		if !ops[0].known || !ops[1].known {
			k.add(Dangerous, "sets configuration only known at run time")
			return
		}
		k.gitKey(literalArg(ops[0].val+"="+ops[1].val), "git config")
	}
	k.add(Moderate, what)
}
