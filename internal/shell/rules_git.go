package shell

import (
	"strings"
)

// Git. Most verbs only read; some write the repository (moderate, undone
// through git itself); a few destroy work that git cannot give back, or
// rewrite what others share (dangerous). Options can make even a reading
// verb write a file (--output) or run a program (-c core.pager=...).

// gitSafeKeys are configuration keys that change only how git shows
// things. Keys outside this list may make git run programs or send data.
var gitSafeKeys = []string{
	"color.", "advice.", "core.quotepath", "core.abbrev", "core.autocrlf", "core.safecrlf", "core.filemode",
	"core.ignorecase", "core.precomposeunicode", "core.longpaths", "user.name", "user.email", "init.defaultbranch",
	"log.", "diff.renames", "diff.noprefix", "diff.mnemonicprefix", "diff.algorithm", "diff.colormoved",
	"diff.relative", "diff.statgraphwidth", "diff.context", "diff.interhunkcontext", "diff.indentheuristic",
	"merge.conflictstyle", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "fetch.prune",
	"column.", "i18n.", "status.", "gc.auto", "maintenance.auto", "blame.", "format.pretty", "pretty.",
	"rebase.autosquash", "rebase.autostash", "rerere.enabled", "commit.gpgsign", "tag.gpgsign", "branch.sort",
	"tag.sort", "versionsort.", "grep.", "help.autocorrect", "feature.", "index.", "pack.", "protocol.version",
	"http.version", "http.postbuffer", "checkout.defaultremote", "credential.interactive",
}

// gitExecKeys can make git run a program or send data somewhere.
var gitExecKeys = []string{
	"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath", "core.askpass",
	"core.gitproxy", "core.attributesfile", "core.worktree", "core.excludesfile", "sequence.editor", "diff.external",
	"difftool.", "mergetool.", "filter.", "alias.", "credential.", "gpg.", "pager.", "protocol.", "uploadpack.",
	"include.", "includeif.", "ssh.", "web.", "browser.", "man.", "instaweb.", "sendemail.", "receive.",
	"init.templatedir", "interactive.difffilter", "url.", "submodule.", "tar.", "remote.", "http.proxy",
	"http.sslverify", "transfer.", "safe.directory", "core.sharedrepository", "uploadarchive.",
}

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
	for _, p := range gitSafeKeys {
		if key == p || strings.HasSuffix(p, ".") && strings.HasPrefix(key, p) {
			return
		}
	}
	for _, p := range gitExecKeys {
		if key == p || strings.HasSuffix(p, ".") && strings.HasPrefix(key, p) ||
			(p == "diff.external" && strings.HasPrefix(key, "diff.") && (strings.HasSuffix(key, ".command") || strings.HasSuffix(key, ".textconv"))) ||
			(strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver")) {
			k.add(Dangerous, how+" sets "+key+", which can make git run programs or send data")
			return
		}
	}
	if strings.HasPrefix(key, "diff.") && (strings.HasSuffix(key, ".command") || strings.HasSuffix(key, ".textconv")) ||
		strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver") {
		k.add(Dangerous, how+" sets "+key+", which can make git run programs")
		return
	}
	k.add(Moderate, how+" sets "+key+", which changes how git behaves")
}

// gitOptVal are options (of any verb) that take a separate value. Knowing
// them keeps values from being read as operands.
var gitOptVal = spec{
	shortVal: "mCFcoSxXUBb",
	shortOpt: "O",
	longVal: []string{"message", "file", "author", "date", "output", "format", "pretty", "since", "until", "after",
		"before", "grep", "committer", "max-count", "skip", "exec", "upload-pack", "receive-pack", "template",
		"reference", "origin", "branch", "depth", "shallow-since", "shallow-exclude", "config", "separate-git-dir",
		"jobs", "strategy", "strategy-option", "onto", "upstream", "open-files-in-pager", "output-directory",
		"remote", "prefix", "abbrev", "extcmd", "tool", "reuse-message", "reedit-message", "fixup", "squash",
		"cleanup", "trailer", "pathspec-from-file", "push-option", "recurse-submodules", "signoff", "gpg-sign",
		"sort", "contains", "no-contains", "merged", "no-merged", "points-at", "set-upstream-to", "track", "orphan",
		"conflict", "source", "unified", "src-prefix", "dst-prefix", "line-prefix", "word-diff-regex", "diff-filter",
		"anchored", "diff-algorithm", "encoding", "exclude", "decorate-refs", "decorate-refs-exclude", "glob"},
}

func ruleGit(k *cmd) {
	args := k.args
	gitDir := k.x.f.cwd
	dirKnown := gitDir != ""
	elsewhere := "" // -C, --git-dir, --work-tree or --bare, as given
	i := 0
globals:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.known {
			k.add(Dangerous, "a git option or verb is only known at run time: "+a.text)
			return
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
				return
			}
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree="):
			var d arg
			shown := v
			if _, val, ok := strings.Cut(v, "="); ok {
				d = literalArg(val)
			} else {
				d = next()
				shown = v + " " + d.text
			}
			if p, ok := k.c.resolve(k.x.f, d); ok {
				if !(v == "-C" && p == k.x.f.cwd || strings.HasPrefix(v, "--git-dir") && p == k.x.f.cwd+"/.git" ||
					strings.HasPrefix(v, "--work-tree") && p == k.x.f.cwd) {
					elsewhere = shown
				}
				gitDir = p
			} else {
				elsewhere = shown
				dirKnown = false
			}
		case v == "--bare":
			elsewhere = v
		case v == "--namespace" || v == "--super-prefix" || v == "--list-cmds" || v == "--attr-source":
			next()
		case v == "--version" || v == "--help" || v == "-h" || v == "--html-path" || v == "--man-path" || v == "--info-path":
			k.add(Safe, "prints git information")
			return
		case strings.HasPrefix(v, "-"):
		default:
			break globals
		}
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
		if elsewhere != "" {
			k.add(Moderate, "works on another repository or work tree ("+elsewhere+"), whose configuration can make git run programs")
		}
	}()
	verb := args[i].val
	rest := args[i+1:]
	k.r.verb = verb
	if k.verbs.NetworkVerbs[verb] {
		k.r.fl.net = true
	}
	outside := false
	if !dirKnown {
		outside = true
	} else if pl, _ := k.c.where(k.x.f, literalArg(gitDir)); pl != placeWorkspace && pl != placeTemp {
		outside = true
	}
	k.gitVerb(verb, rest)
	if outside && k.r.lvl == Moderate {
		k.add(Dangerous, "changes a repository outside the workspace")
	}
}

// gitVerb judges a git verb and its arguments.
func (k *cmd) gitVerb(verb string, rest []arg) {
	opts, ops := gitOptVal.scan(rest)
	has := func(names ...string) bool { return hasOpt(opts, names...) }
	unknown, bad := unknownArgs(rest)

	// Options that write files or run programs, whatever the verb.
	for _, o := range opts {
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

	switch verb {
	case "grep":
		if bad {
			k.add(Dangerous, "an argument only known at run time could be -O, which runs a program: "+unknown.text)
			return
		}
		for _, o := range opts {
			if o.is("-O", "--open-files-in-pager") {
				if o.has && o.val.val != "" {
					k.add(Dangerous, "opens matches with a program named in its options")
				} else {
					k.add(Moderate, "opens matches in the pager")
				}
			}
		}
	case "reflog":
		if len(ops) > 0 && ops[0].known && (ops[0].val == "expire" || ops[0].val == "delete") {
			k.add(Dangerous, "erases reflog entries, the record that recovers lost commits")
			return
		}
	case "fsck":
		if has("--lost-found") {
			k.add(Moderate, "writes dangling objects into .git")
		}
	}
	if k.verbs.Safe[verb] != "" || verb == "reflog" {
		if bad {
			k.add(Moderate, "an argument only known at run time could be an option that writes: "+unknown.text)
		}
		if len(k.r.reasons) == 0 {
			k.add(Safe, "reads the repository")
		}
		return
	}

	if bad && verb != "commit" {
		k.add(Moderate, "an argument is only known at run time: "+unknown.text)
	}
	first := ""
	if len(ops) > 0 && ops[0].known {
		first = ops[0].val
	}
	switch verb {
	case "branch":
		switch {
		case has("-D") || has("-d", "--delete") && has("-f", "--force"):
			k.add(Moderate, "deletes a branch (its commits stay in the reflog)")
		case has("-d", "--delete", "-m", "--move", "-M", "-c", "--copy", "-C", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-f", "--force", "-t", "--track"):
			k.add(Moderate, "changes branches")
		case len(ops) > 0 && !has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"):
			k.add(Moderate, "creates a branch")
		default:
			k.add(Safe, "lists branches")
		}
	case "tag":
		switch {
		case has("-d", "--delete"):
			k.add(Moderate, "deletes a tag")
		case len(ops) > 0 && !has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n", "--verify", "-v"):
			k.add(Moderate, "creates a tag")
		default:
			k.add(Safe, "lists tags")
		}
	case "remote":
		switch first {
		case "", "show", "get-url":
			if first == "show" && !has("-n") {
				k.add(Moderate, "reaches the network")
				k.r.fl.net = true
				return
			}
			k.r.fl.net = false
			k.add(Safe, "lists remotes")
		default:
			k.r.fl.net = false
			k.add(Moderate, "changes remotes")
		}
	case "config":
		// -f is --file here, not --force.
		k.gitConfig(gitConfigSpec.scan(rest))
	case "stash":
		switch first {
		case "list", "show":
			k.add(Safe, "lists stashes")
		case "drop", "clear":
			k.add(Dangerous, "discards stashed changes for good")
		default:
			k.add(Moderate, "stashes or restores uncommitted changes")
		}
	case "worktree":
		switch first {
		case "list":
			k.add(Safe, "lists worktrees")
		case "add":
			if len(ops) > 1 {
				k.write(ops[1])
			}
			k.add(Moderate, "adds a worktree")
		case "remove":
			if has("-f", "--force") {
				k.add(Dangerous, "removes a worktree with uncommitted changes")
				return
			}
			k.add(Moderate, "removes a worktree")
		default:
			k.add(Moderate, "changes worktrees")
		}
	case "notes":
		if first == "" || first == "list" || first == "show" || first == "get-ref" {
			k.add(Safe, "reads notes")
			return
		}
		k.add(Moderate, "changes notes")
	case "submodule":
		switch first {
		case "", "status", "summary":
			k.r.fl.net = false
			k.add(Safe, "lists submodules")
		case "foreach":
			k.add(Moderate, "runs a command in every submodule")
			if len(ops) > 1 {
				k.nestedScript(literalArg(normalise(ops[1:])), "runs a script")
				for _, o := range ops[1:] {
					if !o.known {
						k.add(Dangerous, "runs a script only known at run time: "+o.text)
					}
				}
			}
		default:
			k.add(Moderate, "changes submodules")
		}
	case "bisect":
		switch first {
		case "log", "view", "visualize", "terms":
			k.add(Safe, "shows the bisection")
		case "run":
			k.add(Moderate, "runs a command at every step")
			k.nestedArgv(ops[1:])
		default:
			k.add(Moderate, "moves through history")
		}
	case "apply":
		if has("--check", "--stat", "--numstat", "--summary") && !has("--apply") {
			k.add(Safe, "checks a patch")
			return
		}
		if has("--unsafe-paths") {
			k.add(Dangerous, "applies a patch outside the work tree")
		}
		if v, ok := optVal(opts, "--directory"); ok {
			k.write(v)
		}
		k.add(Moderate, "applies a patch")
	case "hash-object":
		if has("-w") {
			k.add(Moderate, "writes objects into the repository")
			return
		}
		k.add(Safe, "hashes files")
	case "symbolic-ref":
		if len(ops) <= 1 && !has("-d", "--delete") {
			k.add(Safe, "reads a reference")
			return
		}
		k.add(Moderate, "changes a reference")
	case "format-patch":
		if has("--stdout") {
			k.add(Safe, "prints patches")
			return
		}
		if v, ok := optVal(opts, "-o", "--output-directory"); ok {
			k.write(v)
		}
		k.add(Moderate, "writes patch files")
	case "archive":
		if has("--list", "-l") {
			k.add(Safe, "lists archive formats")
			return
		}
		if v, ok := optVal(opts, "-o", "--output"); ok {
			k.write(v)
		}
		if has("--remote") {
			k.add(Moderate, "reaches the network")
			return
		}
		k.r.fl.net = false
		if !has("-o", "--output") && len(k.r.reasons) == 0 {
			k.add(Safe, "writes an archive to standard output")
		}
	case "bundle":
		if first == "verify" || first == "list-heads" {
			k.add(Safe, "reads a bundle")
			return
		}
		if first == "create" && len(ops) > 1 {
			k.write(ops[1])
		}
		k.add(Moderate, "writes a bundle")
	case "reset":
		if has("--hard", "--merge", "--keep") {
			k.add(Dangerous, "discards uncommitted changes for good (reset --hard)")
			return
		}
		k.add(Moderate, "moves the branch or unstages changes")
	case "clean":
		if has("-n", "--dry-run") && !has("-f", "--force") {
			k.add(Safe, "lists untracked files")
			return
		}
		if has("-i", "--interactive") && !has("-f", "--force") {
			k.add(Moderate, "deletes untracked files it asks about")
			return
		}
		k.add(Dangerous, "deletes untracked files for good")
	case "checkout":
		switch {
		case has("-f", "--force") || hasDashDash(rest) || first == "." || has("--ours", "--theirs", "-p", "--patch") || len(ops) > 1:
			k.add(Dangerous, "overwrites uncommitted changes in the work tree for good")
		default:
			k.add(Moderate, "switches branches or restores files")
		}
	case "switch":
		if has("-f", "--force", "--discard-changes") {
			k.add(Dangerous, "throws away uncommitted changes")
			return
		}
		k.add(Moderate, "switches branches")
	case "restore":
		if (has("-S", "--staged") && !has("-W", "--worktree")) || has("--dry-run") {
			k.add(Moderate, "unstages changes")
			return
		}
		k.add(Dangerous, "overwrites uncommitted changes in the work tree for good")
	case "push":
		k.gitPush(opts, ops)
	case "rebase":
		if v, ok := optVal(opts, "-x", "--exec"); ok {
			k.add(Moderate, "runs a command after every commit")
			k.nestedScript(v, "runs a script")
		}
		k.add(Moderate, "rewrites local commits")
	case "difftool", "mergetool":
		if v, ok := optVal(opts, "-x", "--extcmd"); ok {
			k.nestedScript(v, "runs a script")
		}
		k.add(Moderate, "runs a diff or merge tool")
	case "filter-branch", "filter-repo", "replace":
		k.add(Dangerous, "rewrites the whole history")
	case "prune", "prune-packed":
		k.add(Dangerous, "deletes unreachable objects for good")
	case "gc":
		if v, ok := optVal(opts, "--prune"); ok && v.val == "now" {
			k.add(Dangerous, "deletes unreachable objects for good")
			return
		}
		k.add(Moderate, "compacts the repository")
	case "update-ref":
		if has("-d") {
			k.add(Dangerous, "deletes a reference without a reflog")
			return
		}
		k.add(Moderate, "changes a reference")
	case "send-email", "imap-send":
		k.add(Dangerous, "sends patches by mail")
	case "credential", "credential-store", "credential-cache", "credential-osxkeychain", "credential-manager", "credential-libsecret":
		k.add(Dangerous, "reads or changes stored credentials")
	case "daemon", "instaweb", "http-backend", "shell", "upload-pack", "receive-pack", "upload-archive":
		k.add(Moderate, "serves the repository")
	case "clone":
		if len(ops) > 1 {
			k.write(ops[1])
		}
		k.add(Moderate, "downloads a repository")
	case "init":
		if len(ops) > 0 {
			k.write(ops[0])
		}
		k.add(Moderate, "creates a repository")
	case "fetch", "pull", "ls-remote":
		if verb == "fetch" && has("--dry-run") {
			k.add(Moderate, "reaches the network")
			return
		}
		k.add(Moderate, "reaches the network")
	case "add", "commit", "mv", "rm", "merge", "cherry-pick", "revert", "am", "update-index", "sparse-checkout",
		"maintenance", "repack", "lfs", "commit-tree", "read-tree", "write-tree", "checkout-index", "mktag", "notes-merge",
		"rerere", "pack-refs", "multi-pack-index", "commit-graph", "merge-file", "merge-tree":
		k.add(Moderate, "changes the repository")
	default:
		k.add(Moderate, "not a known git verb (it may be an alias)")
	}
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
