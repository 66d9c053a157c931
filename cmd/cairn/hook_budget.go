package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cairn-kb/cairn/query"
)

// hookBytesPerToken is the project's token rule, the one a pack's budget
// is measured with: a text of n bytes is ⌈n/4⌉ tokens.
const hookBytesPerToken = 4

// hookRulesDivisor sets the rules' share: they may take 1/hookRulesDivisor
// of the room (the budget less the header lines), one half, before the
// pack gets the rest. The rules are what the agent must follow, so they
// are served first; the cap keeps a long rules answer from leaving no
// pack at all.
const hookRulesDivisor = 2

// hookParts is what the hook's text is assembled from.
type hookParts struct {
	budget    int    // tokens for the whole text
	head      string // the first line and a blank line
	rulesHead string // the line that introduces the rules
	rules     []byte // the rules, whole
	whole     string // how to print the rules whole, for the cut line
	// pack answers the question within a token budget; a budget below
	// its least is a *query.BudgetError.
	pack func(budget int) ([]byte, error)
}

// fitHook assembles the hook's text so that all of it, header lines
// included, is at most the budget in tokens. The rules come first: whole
// when they fit in their share (hookRulesDivisor), else cut at a line with
// a line saying so. The pack gets what the rules leave as its budget; when
// that is below the smallest pack, one line says the pack is left out
// and the rules may take the whole room. A pack smaller than its budget
// gives the room it left back to cut rules.
func fitHook(p hookParts) (string, error) {
	room := p.budget*hookBytesPerToken - len(p.head) - len(p.rulesHead)
	if room < 0 {
		return "", fmt.Errorf("--budget %d cannot hold even the header lines (%d tokens); raise it", p.budget,
			(len(p.head)+len(p.rulesHead)+hookBytesPerToken-1)/hookBytesPerToken)
	}
	rules := cutRules(p.rules, room/hookRulesDivisor, p.whole)
	packBudget := max((room-len(rules))/hookBytesPerToken, 1)
	pack, err := p.pack(packBudget)
	var be *query.BudgetError
	switch {
	case errors.As(err, &be):
		pack = fmt.Appendf(nil, "cairn: no pack: the budget leaves %d tokens for it and the smallest takes %d; --budget %d gives one.\n",
			packBudget, be.Minimum, budgetForPack(p, be.Minimum))
	case err != nil:
		return "", err
	}
	if len(rules) < len(p.rules) {
		rules = cutRules(p.rules, room-len(pack), p.whole)
	}
	if len(rules) == 0 && len(p.rules) > 0 {
		// Rules cut to nothing would read as a folder without rules.
		least := len(p.head) + len(pack) + len(p.rulesHead) + len(cutLine(bytes.Count(p.rules, []byte("\n")), p.whole))
		return "", fmt.Errorf("--budget %d cannot hold the rules or the line saying they are cut; raise it to %d or more", p.budget,
			(least+hookBytesPerToken-1)/hookBytesPerToken)
	}
	var b bytes.Buffer
	b.WriteString(p.head)
	b.Write(pack)
	b.WriteString(p.rulesHead)
	b.Write(rules)
	if b.Len() > p.budget*hookBytesPerToken {
		// Only a line of the hook's own too long for a tiny budget gets
		// here; the pack and the rules are fitted to what is left.
		return "", fmt.Errorf("--budget %d cannot hold the hook's own lines; raise it", p.budget)
	}
	return b.String(), nil
}

// budgetForPack is the least budget that leaves a pack of minimum tokens
// beside these rules: the pack's bytes and the rules' own (whole, or cut
// to their half of the room, so never more than the pack's).
func budgetForPack(p hookParts, minimum int) int {
	packBytes := minimum * hookBytesPerToken
	room := packBytes + min(len(p.rules), packBytes)
	return (room + len(p.head) + len(p.rulesHead) + hookBytesPerToken - 1) / hookBytesPerToken
}

// cutRules is rules within max bytes: whole when they fit, else their
// longest run of whole lines that leaves room for a last line saying how
// many lines were cut and which command prints them whole; nothing when
// even that line does not fit.
func cutRules(rules []byte, max int, whole string) []byte {
	if len(rules) <= max {
		return rules
	}
	total := bytes.Count(rules, []byte("\n"))
	if len(rules) > 0 && rules[len(rules)-1] != '\n' {
		total++
	}
	bestEnd, bestLine := 0, ""
	kept, end := 0, 0
	for end <= max {
		if line := cutLine(total-kept, whole); end+len(line) <= max {
			bestEnd, bestLine = end, line
		}
		next := bytes.IndexByte(rules[end:], '\n')
		if next < 0 {
			break
		}
		end += next + 1
		kept++
	}
	if bestLine == "" {
		return nil
	}
	return append(rules[:bestEnd:bestEnd], bestLine...)
}

// cutLine says that n lines of the rules were cut, and how to read them.
func cutLine(n int, whole string) string {
	if n == 1 {
		return fmt.Sprintf("cairn: 1 more line of these rules is cut for the budget; %s.\n", whole)
	}
	return fmt.Sprintf("cairn: %d more lines of these rules are cut for the budget; %s.\n", n, whole)
}
