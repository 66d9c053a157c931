package collect

import (
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// fillPlaceholders is run with fkf's placeholders filled in for one
// window: {{date}} and {{next_date}} its first day and the day after,
// {{start}} and {{end}} its half-open bounds, {{base}} the base folder and
// {{home}} the user's home. Each word stays one argument.
func fillPlaceholders(run []string, win window, base, home string) []string {
	r := strings.NewReplacer(
		"{{date}}", win.Start.Format(time.DateOnly),
		"{{next_date}}", win.Start.AddDate(0, 0, 1).Format(time.DateOnly),
		"{{start}}", win.Start.Format(time.DateOnly),
		"{{end}}", win.End.Format(time.DateOnly),
		"{{base}}", base,
		"{{home}}", home,
	)
	out := make([]string, len(run))
	for i, w := range run {
		out[i] = r.Replace(w)
	}
	return out
}

// envValue is the value of name in env, the last one set.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// prependPath puts dir first on env's PATH.
func prependPath(env []string, dir string) []string {
	path := envValue(env, "PATH")
	if path != "" {
		path = dir + string(filepath.ListSeparator) + path
	} else {
		path = dir
	}
	return append(env, "PATH="+path)
}

// lookPath finds a bare command name on env's PATH, as the command's own
// environment would.
func lookPath(name string, env []string) (string, error) {
	for _, dir := range filepath.SplitList(envValue(env, "PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if found, err := exec.LookPath(p); err == nil {
			return found, nil
		}
	}
	return exec.LookPath(name)
}
