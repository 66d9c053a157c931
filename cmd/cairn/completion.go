package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// CompletionCmd is `cairn completion bash|zsh|fish`.
type CompletionCmd struct {
	Shell string `arg:"" name:"SHELL" enum:"bash,zsh,fish" help:"The shell to complete for: bash, zsh or fish."`
}

// Help is the detail under the summary of `cairn completion --help`.
func (CompletionCmd) Help() string {
	return `The script is static: it completes the commands, subcommands, flags and the values of flags that take one of a few, as this cairn knows them.

Examples:

    source <(cairn completion bash)    # in ~/.bashrc
    source <(cairn completion zsh)     # in ~/.zshrc, after compinit
    cairn completion fish > ~/.config/fish/completions/cairn.fish`
}

// Run prints the script for the shell, generated from kong's model of
// the command tree, so that it cannot miss a command or flag.
func (c *CompletionCmd) Run(kctx *kong.Context, env *Env) error {
	nodes := completionNodes(kctx.Model.Node)
	switch c.Shell {
	case "bash":
		writeBash(env.Stdout, nodes)
	case "zsh":
		writeZsh(env.Stdout, nodes)
	case "fish":
		writeFish(env.Stdout, nodes)
	}
	return nil
}

// compNode is one command of the tree as completion sees it.
type compNode struct {
	path  string // the command words after cairn, space-separated; "" for cairn itself
	name  string // the last of them
	help  string
	subs  []string
	flags []compFlag // its own and its parents', --help first
	args  [][]string // the values each positional argument takes, nil where any
}

// compFlag is a flag as completion sees it.
type compFlag struct {
	name   string
	help   string
	valued bool     // takes a value
	values []string // the values it takes, when they are few and known
}

// completionNodes lists the command tree under root, parents before their
// children, in the order of the CLI struct.
func completionNodes(root *kong.Node) []compNode {
	var out []compNode
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		c := compNode{path: path, name: n.Name, help: firstSentence(n.Help)}
		for _, group := range n.AllFlags(true) {
			for _, f := range group {
				values := enumValues(f.Value)
				if v := f.Tag.Get("values"); v != "" {
					values = strings.Split(v, ",")
				}
				c.flags = append(c.flags, compFlag{name: f.Name, help: firstSentence(f.Help), valued: !f.IsBool() && !f.IsCounter(), values: values})
			}
		}
		for _, p := range n.Positional {
			c.args = append(c.args, enumValues(p))
		}
		var children []*kong.Node
		for _, ch := range n.Children {
			if ch.Type == kong.CommandNode && !ch.Hidden {
				c.subs = append(c.subs, ch.Name)
				children = append(children, ch)
			}
		}
		out = append(out, c)
		for _, ch := range children {
			walk(ch, strings.TrimSpace(path+" "+ch.Name))
		}
	}
	walk(root, "")
	// cairn help takes a command's words: its first is one of cairn's.
	for i := range out {
		if out[i].path == "help" && len(out[i].args) > 0 {
			out[i].args[0] = out[0].subs
		}
	}
	return out
}

// enumValues are the values an enum flag or argument takes, nil for
// any other.
func enumValues(v *kong.Value) []string {
	if v.Enum == "" {
		return nil
	}
	return v.EnumSlice()
}

// shPrint prints its argument in bash and zsh alike: echo would read a
// leading -n or -e as its own option.
const shPrint = `printf '%s\n'`

// shQuote quotes s for bash and zsh.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// firstSentence is the start of a help text, for a shell's one-line
// descriptions.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// writeShellTables writes the shell functions bash and zsh share: what
// the command words so far (their first argument) lead to.
//
//	_cairn_cmds PATH         the subcommands of PATH
//	_cairn_flags PATH        the flags allowed after PATH
//	_cairn_valued PATH FLAG  succeeds when FLAG takes a value there
//	_cairn_values PATH FLAG  the values FLAG takes there, if known
//	_cairn_args PATH N       the values of PATH's Nth argument, if known
func writeShellTables(w io.Writer, nodes []compNode) {
	table := func(name string, rows func(n compNode) []string) {
		fmt.Fprintf(w, "%s() {\n    case \"$1\" in\n", name)
		for _, n := range nodes {
			if r := rows(n); len(r) > 0 {
				fmt.Fprintf(w, "    %s) %s %s ;;\n", shQuote(n.path), shPrint, shQuote(strings.Join(r, " ")))
			}
		}
		fmt.Fprintf(w, "    esac\n}\n")
	}
	table("_cairn_cmds", func(n compNode) []string { return n.subs })
	table("_cairn_flags", func(n compNode) []string {
		var r []string
		for _, f := range n.flags {
			r = append(r, "--"+f.name)
		}
		return r
	})
	pairs := func(name, body string, rows func(n compNode) [][2]string) {
		fmt.Fprintf(w, "%s() {\n    case \"$1 $2\" in\n", name)
		for _, n := range nodes {
			for _, r := range rows(n) {
				fmt.Fprintf(w, "    %s) %s ;;\n", shQuote(n.path+" "+r[0]), strings.ReplaceAll(body, "VALUE", shQuote(r[1])))
			}
		}
		fmt.Fprintf(w, "    *) return 1 ;;\n    esac\n}\n")
	}
	pairs("_cairn_valued", "return 0", func(n compNode) (r [][2]string) {
		for _, f := range n.flags {
			if f.valued {
				r = append(r, [2]string{"--" + f.name, ""})
			}
		}
		return r
	})
	pairs("_cairn_values", shPrint+" VALUE", func(n compNode) (r [][2]string) {
		for _, f := range n.flags {
			if len(f.values) > 0 {
				r = append(r, [2]string{"--" + f.name, strings.Join(f.values, " ")})
			}
		}
		return r
	})
	pairs("_cairn_args", shPrint+" VALUE", func(n compNode) (r [][2]string) {
		for i, a := range n.args {
			if len(a) > 0 {
				r = append(r, [2]string{fmt.Sprint(i), strings.Join(a, " ")})
			}
		}
		return r
	})
}

// completeWalk is the shell code bash and zsh share: it reads the words
// before the cursor (WORDS, from index FIRST to before CWORD) into the
// command path reached, cmdpath, and the number of arguments after it,
// pos. A flag's value is skipped, also when bash split --flag=value at
// its "=".
const completeWalk = `    local cmdpath="" pos=0 i w skip=0 ended=0
    for ((i = FIRST; i < CWORD; i++)); do
        w=${WORDS[i]}
        if ((skip > 0)); then skip=$((skip - 1)); continue; fi
        if ((!ended)); then
            case $w in
            --) ended=1; continue ;;
            --*=*) continue ;;
            -?*)
                if _cairn_valued "$cmdpath" "$w"; then
                    skip=1
                    [[ ${WORDS[i+1]} == "=" ]] && skip=2
                fi
                continue ;;
            esac
        fi
        if ((pos == 0)) && [[ " $(_cairn_cmds "$cmdpath") " == *" $w "* ]]; then
            cmdpath=${cmdpath:+$cmdpath }$w
        else
            pos=$((pos + 1))
        fi
    done
`

func writeBash(w io.Writer, nodes []compNode) {
	fmt.Fprintln(w, "# bash completion for cairn, generated by `cairn completion bash`.")
	fmt.Fprintln(w, "# Load it with: source <(cairn completion bash)")
	writeShellTables(w, nodes)
	walk := strings.NewReplacer("FIRST", "1", "CWORD", "COMP_CWORD", "WORDS", "COMP_WORDS").Replace(completeWalk)
	fmt.Fprintf(w, `_cairn() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} flag=""
%s    if [[ $cur == "=" ]]; then
        flag=$prev cur=""
    elif [[ $prev == "=" ]]; then
        flag=${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $prev == -?* && $cur != -* ]] && ((!ended)) && _cairn_valued "$cmdpath" "$prev"; then
        flag=$prev
    fi
    local words
    if [[ -n $flag ]]; then
        words=$(_cairn_values "$cmdpath" "$flag")
    elif [[ $cur == -* ]] && ((!ended)); then
        words=$(_cairn_flags "$cmdpath")
    elif ((pos == 0)) && [[ -n $(_cairn_cmds "$cmdpath") ]]; then
        words=$(_cairn_cmds "$cmdpath")
    else
        words=$(_cairn_args "$cmdpath" "$pos")
    fi
    if [[ -n $words ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o bashdefault -o default -F _cairn cairn
`, walk)
}

func writeZsh(w io.Writer, nodes []compNode) {
	fmt.Fprintln(w, "#compdef cairn")
	fmt.Fprintln(w, "# zsh completion for cairn, generated by `cairn completion zsh`.")
	fmt.Fprintln(w, "# Load it with: source <(cairn completion zsh), after compinit; or save it as _cairn in $fpath.")
	writeShellTables(w, nodes)
	// zsh counts words from 1 (the command itself) and does not split a
	// word at "=".
	walk := strings.NewReplacer("FIRST", "2", "CWORD", "CURRENT", "WORDS", "words").Replace(completeWalk)
	fmt.Fprintf(w, `_cairn() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} flag=""
%s    if [[ $cur == --*=* ]] && ((!ended)); then
        flag=${cur%%%%=*}
        compset -P '*='
    elif [[ $prev == -?* && $cur != -* ]] && ((!ended)) && _cairn_valued "$cmdpath" "$prev"; then
        flag=$prev
    fi
    local list
    if [[ -n $flag ]]; then
        list=$(_cairn_values "$cmdpath" "$flag")
    elif [[ $cur == -* ]] && ((!ended)); then
        list=$(_cairn_flags "$cmdpath")
    elif ((pos == 0)) && [[ -n $(_cairn_cmds "$cmdpath") ]]; then
        list=$(_cairn_cmds "$cmdpath")
    else
        list=$(_cairn_args "$cmdpath" "$pos")
    fi
    if [[ -n $list ]]; then
        compadd -- ${=list}
    else
        _files
    fi
}
if [[ ${funcstack[1]} == _cairn ]]; then
    _cairn "$@"
else
    compdef _cairn cairn
fi
`, walk)
}

func writeFish(w io.Writer, nodes []compNode) {
	fmt.Fprintln(w, "# fish completion for cairn, generated by `cairn completion fish`.")
	fmt.Fprintln(w, "# Save it as ~/.config/fish/completions/cairn.fish, or: cairn completion fish | source")
	fmt.Fprintln(w, "complete -c cairn -f")
	for _, n := range nodes {
		// cond is fish's test that the command line has reached n and not
		// one of its subcommands.
		var conds []string
		if n.path == "" {
			conds = append(conds, "__fish_use_subcommand")
		} else {
			for _, word := range strings.Fields(n.path) {
				conds = append(conds, "__fish_seen_subcommand_from "+word)
			}
			if len(n.subs) > 0 {
				conds = append(conds, "not __fish_seen_subcommand_from "+strings.Join(n.subs, " "))
			}
		}
		cond := fishQuote(strings.Join(conds, "; and "))
		for _, sub := range n.subs {
			fmt.Fprintf(w, "complete -c cairn -n %s -a %s -d %s\n", cond, sub, fishQuote(subHelp(nodes, n.path, sub)))
		}
		// A flag is completed where its command is; the global ones once,
		// everywhere.
		for _, f := range n.flags {
			if n.path != "" && isGlobal(nodes[0], f.name) {
				continue
			}
			line := "complete -c cairn"
			if n.path != "" {
				line += " -n " + fishQuote(strings.Join(conds[:len(strings.Fields(n.path))], "; and "))
			}
			line += " -l " + f.name
			switch {
			case len(f.values) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.valued:
				line += " -r -F"
			}
			fmt.Fprintf(w, "%s -d %s\n", line, fishQuote(f.help))
		}
		for _, a := range n.args {
			if len(a) > 0 {
				fmt.Fprintf(w, "complete -c cairn -n %s -a %s\n", cond, fishQuote(strings.Join(a, " ")))
			}
		}
	}
}

// subHelp is the one-line help of the subcommand sub of the command at path.
func subHelp(nodes []compNode, path, sub string) string {
	want := strings.TrimSpace(path + " " + sub)
	for _, n := range nodes {
		if n.path == want {
			return n.help
		}
	}
	return ""
}

// isGlobal reports whether root (cairn itself) has the flag.
func isGlobal(root compNode, name string) bool {
	for _, f := range root.flags {
		if f.name == name {
			return true
		}
	}
	return false
}

// fishQuote quotes s for fish, which reads backslash and quote escapes
// inside single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
