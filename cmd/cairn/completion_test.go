package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completionScript is what `cairn completion SHELL` prints.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, stdout, stderr := cairn(t, "completion", shell)
	if code != 0 || stderr != "" {
		t.Fatalf("completion %s: exit %d: %s", shell, code, stderr)
	}
	return stdout
}

// TestCompletionBash loads the script into a real bash as a user does,
// `source <(cairn completion bash)`, finds the function `complete -p`
// names for cairn and calls it on command lines as bash would split them.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	bin := builtCairn(t)
	cases := []struct{ line, want string }{
		{"cairn con", "context"},
		{"cairn ", "init build context search list read collect note check status import eval mcp hook demo version completion help man"},
		{"cairn note s", "suggest"},
		{"cairn --base /tmp bu", "build"},
		{"cairn context --for", "--format"},
		{"cairn context --format j", "json jsonl"},
		{"cairn context --format = j", "json jsonl"}, // --format=j, split at = by bash
		{"cairn note list --format ", "text json"},
		{"cairn completion ", "bash zsh fish"},
		{"cairn help co", "context collect completion"},
		{"cairn build --q", "--quiet"},
		{"cairn note suggest --actor x note:y --valid-", "--valid-from --valid-until"},
		{"cairn context q -- --f", ""}, // after --, a word is a query word
	}
	var script strings.Builder
	script.WriteString("source <(\"$CAIRN\" completion bash) || exit 1\n")
	script.WriteString("fn=$(complete -p cairn | sed -E 's/.* -F ([^ ]+) .*/\\1/')\n")
	script.WriteString("try() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); \"$fn\" cairn; echo \"${COMPREPLY[*]}\"; }\n")
	for _, c := range cases {
		words := strings.Split(c.line, " ")
		for i := range words {
			words[i] = "'" + words[i] + "'"
		}
		script.WriteString("try " + strings.Join(words, " ") + "\n")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script.String())
	cmd.Env = append(os.Environ(), "CAIRN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(cases) {
		t.Fatalf("bash printed %d lines for %d cases:\n%s", len(got), len(cases), out)
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%q<TAB>: got %q, want %q", c.line, got[i], c.want)
		}
	}
}

// TestCompletionCoversTheTree: each script names every command and flag
// of the command tree, and the values of every enum.
func TestCompletionCoversTheTree(t *testing.T) {
	env, _, _ := quietEnv()
	var cli CLI
	k, err := newParser(&cli, env)
	if err != nil {
		t.Fatal(err)
	}
	nodes := completionNodes(k.Model.Node)
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		scripts[sh] = completionScript(t, sh)
	}
	for _, n := range nodes {
		for _, sh := range []string{"bash", "zsh"} {
			row := "    " + shQuote(n.path) + ") " + shPrint + " "
			if !strings.Contains(scripts[sh], row) {
				t.Errorf("%s: no row for %q", sh, n.path)
			}
		}
		// The row of _cairn_flags for n, which lists --help first.
		_, flagRow, _ := strings.Cut(scripts["bash"], "    "+shQuote(n.path)+") "+shPrint+" '--help")
		flagRow, _, _ = strings.Cut("--help"+flagRow, "\n")
		for _, f := range n.flags {
			if !strings.Contains(" "+flagRow+" ", " --"+f.name+" ") && !strings.Contains(flagRow, " --"+f.name+"'") ||
				!strings.Contains(scripts["fish"], " -l "+f.name+" ") {
				t.Errorf("--%s of %q is missing from a script", f.name, n.path)
			}
			for _, v := range f.values {
				if !strings.Contains(scripts["fish"], v) || !strings.Contains(scripts["zsh"], v) {
					t.Errorf("value %s of --%s is missing from a script", v, f.name)
				}
			}
		}
		for _, s := range n.subs {
			if !strings.Contains(scripts["fish"], " -a "+s+" -d ") {
				t.Errorf("fish: no completion of %q under %q", s, n.path)
			}
		}
	}
	if len(nodes) < 10 || nodes[0].path != "" {
		t.Errorf("the tree walk found %d commands, first %q", len(nodes), nodes[0].path)
	}
}

// TestCompletionZshAndFish checks each script's syntax with its shell
// where that is installed, and its shape where it is not.
func TestCompletionZshAndFish(t *testing.T) {
	for _, sh := range []string{"zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			script := completionScript(t, sh)
			if path, err := exec.LookPath(sh); err == nil {
				file := filepath.Join(t.TempDir(), "cairn."+sh)
				if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command(path, "-n", file).CombinedOutput(); err != nil {
					t.Errorf("%s -n: %v\n%s", sh, err, out)
				}
			}
			switch sh {
			case "zsh":
				for _, want := range []string{"#compdef cairn\n", "compdef _cairn cairn\n", "compadd -- ${=list}", "_files"} {
					if !strings.Contains(script, want) {
						t.Errorf("the zsh script lacks %q", want)
					}
				}
				// zsh ties $path to $PATH: the script must not assign it.
				if strings.Contains(script, "local path") || strings.Contains(script, " path=") {
					t.Errorf("the zsh script sets $path")
				}
			case "fish":
				for i, line := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
					unescaped := strings.Count(strings.ReplaceAll(strings.ReplaceAll(line, `\\`, ""), `\'`, ""), "'")
					if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "complete -c cairn ") || unescaped%2 != 0 {
						t.Errorf("fish line %d is not a balanced complete command: %s", i+1, line)
					}
				}
				for _, want := range []string{"complete -c cairn -n '__fish_use_subcommand' -a context -d ", "-l format -x -a 'text json jsonl markdown'"} {
					if !strings.Contains(script, want) {
						t.Errorf("the fish script lacks %q", want)
					}
				}
			}
		})
	}
}
