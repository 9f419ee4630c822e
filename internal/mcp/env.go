package mcp

import (
	"sort"

	"github.com/wisp-agent/wisp/internal/config"
)

// baseline are the variables of wisp's environment every server gets.
var baseline = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG"}

// serverEnv is a server's whole environment: the baseline, then env,
// then env_from. missing names the first env_from variable that is not
// set (the server is then skipped); never its value, since it has none.
func serverEnv(getenv func(string) string, cfg config.MCPServer) (env []string, missing string) {
	vars := map[string]string{}
	for _, k := range baseline {
		if v := getenv(k); v != "" {
			vars[k] = v
		}
	}
	for k, v := range cfg.Env {
		vars[k] = v
	}
	for _, k := range cfg.EnvFrom {
		v := getenv(k)
		if v == "" {
			return nil, k
		}
		vars[k] = v
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env, ""
}
