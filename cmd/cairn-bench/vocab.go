package main

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// vocabularySize is the number of distinct words record and page text is
// drawn from: enough for a realistic long tail of rare terms.
const vocabularySize = 3200

// vocabularySeed fixes the vocabulary and its frequency ranks whatever the
// base seed, so a benchmark query can name a common or a rare word by rank.
const vocabularySeed = 0x5eedc0de

// functionWords are the most frequent words of any English text; they take
// the top ranks and become stop terms in a large candidate set.
var functionWords = strings.Fields(`the and for with to of in on is that this from by it as at be are
was not we but after when now into still only also before again should will can until our
their more than`)

// domainWords are real words of a software team's working vocabulary.
var domainWords = strings.Fields(`build deploy release cache index ledger queue worker retry timeout
flaky test tests pipeline migration schema rollback rollout canary cluster node pod service
gateway proxy router endpoint request response latency throughput memory leak crash panic error
warning alert incident outage postmortem runbook oncall pager escalation customer account
billing invoice payment refund checkout cart order shipment inventory warehouse catalog search
ranking relevance query token budget receipt digest snapshot backup restore replica shard
partition compaction vacuum lock mutex deadlock race goroutine thread pool connection socket
handshake certificate renewal secret vault rotation credential permission role policy audit
compliance privacy consent export import upload download storage bucket object blob stream
batch job scheduler cron trigger webhook callback event message topic consumer producer offset
lag backlog throttle quota limit rate burst spike regression benchmark profile trace span
metric dashboard grafana histogram percentile median budget forecast roadmap milestone sprint
backlog estimate review approval merge branch rebase conflict commit revert hotfix patch
version semver changelog deprecation upgrade downgrade dependency vendor module package
library binary container image registry manifest helm chart terraform module variable config
flag feature toggle experiment cohort segment funnel onboarding signup login logout session
cookie header payload encoding decoding parser lexer compiler linter formatter fixture mock
stub harness coverage mutation fuzz corpus seed golden baseline drift divergence parity
contract interface adapter plugin extension hook middleware handler controller model view
template render layout theme font color icon button modal dialog tooltip banner toast
accessibility localisation translation locale timezone calendar meeting agenda minutes
decision action owner stakeholder sponsor vendor contract renewal pricing discount quote
proposal draft final approved blocked pending resolved closed reopened duplicate triage
priority severity impact scope risk mitigation fallback failover recovery resilience uptime
availability durability consistency idempotent transaction isolation snapshot journal wal
checkpoint replay offset watermark window aggregate rollup projection materialise denormalise
normalise dedupe join filter sort page cursor pagination offset tenant workspace project
team squad guild chapter handbook onboarding offboarding hiring interview feedback retro
planning standup sync demo showcase launch announcement newsletter blog docs guide tutorial
reference glossary terminology wording style tone voice brand legal counsel`)

// accentedWords are placed at mid and rare ranks, so tokenisers meet
// non-ASCII text without it dominating.
var accentedWords = strings.Fields("über façade naïve café résumé déjà garçon smörgåsbord")

// invented syllables make plausible words that no dictionary has, so rare
// terms are genuinely rare and never collide with real ones.
var (
	onsets = strings.Fields("b br c ch d dr f fl g gr h j k kl l m n p pl pr qu r s sk sl st t tr v w z th sh")
	nuclei = strings.Fields("a e i o u a e i o u a e o ai ea io ou y")
	codas  = []string{"", "", "", "n", "r", "l", "s", "x", "nd", "rk", "st", "m", "t", "ck", "ll", "sh"}
)

// vocabulary is the ranked word list and the samplers over it.
type vocabulary struct {
	words   []string
	all     *zipf // every word, function words included
	content *zipf // words after the function words, for titles and terms
}

func newVocabulary() *vocabulary {
	r := newRNG(vocabularySeed, "vocabulary")
	seen := map[string]bool{}
	var real []string
	for _, w := range append(append([]string{}, functionWords...), domainWords...) {
		if !seen[w] {
			seen[w] = true
			real = append(real, w)
		}
	}
	domain := real[len(functionWords):]
	shuffle(r, domain)
	var invented []string
	for _, w := range accentedWords {
		seen[w] = true
	}
	for len(real)+len(invented)+len(accentedWords) < vocabularySize {
		w := inventWord(r)
		if n := utf8.RuneCountInString(w); n < 4 || n > 9 || seen[w] {
			continue
		}
		seen[w] = true
		invented = append(invented, w)
	}
	// Function words first; then real and invented words interleave, real
	// ones a little more often, so both kinds span common and rare ranks.
	words := append([]string{}, functionWords...)
	i, j := 0, 0
	for i < len(domain) || j < len(invented) {
		if i < len(domain) && (j >= len(invented) || r.chance(55)) {
			words = append(words, domain[i])
			i++
		} else {
			words = append(words, invented[j])
			j++
		}
	}
	for k, a := range accentedWords {
		words = slices.Insert(words, 600+k*300, a)
	}
	return &vocabulary{
		words:   words,
		all:     newZipf(len(words), 2),
		content: newZipf(len(words)-len(functionWords), 3),
	}
}

func inventWord(r *rng) string {
	var b strings.Builder
	n := 2
	if r.chance(25) {
		n = 3
	}
	for s := range n {
		b.WriteString(pick(r, onsets))
		b.WriteString(pick(r, nuclei))
		if s == n-1 || r.chance(25) {
			b.WriteString(pick(r, codas))
		}
	}
	return b.String()
}

func shuffle[T any](r *rng, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// word draws any word, function words included.
func (v *vocabulary) word(r *rng) string { return v.words[v.all.draw(r)] }

// contentWord draws a word that carries meaning (no function words).
func (v *vocabulary) contentWord(r *rng) string {
	return v.words[len(functionWords)+v.content.draw(r)]
}

// appendWords appends n words separated by spaces.
func (v *vocabulary) appendWords(b []byte, r *rng, n int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, v.word(r)...)
	}
	return b
}

// appendSentence appends a capitalised sentence of lo..hi words.
func (v *vocabulary) appendSentence(b []byte, r *rng, lo, hi int) []byte {
	start := len(b)
	b = v.appendWords(b, r, r.between(lo, hi))
	if start < len(b) && b[start] >= 'a' && b[start] <= 'z' {
		b[start] -= 'a' - 'A'
	}
	return append(b, '.')
}

// appendProse appends n sentences separated by spaces.
func (v *vocabulary) appendProse(b []byte, r *rng, n, lo, hi int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = v.appendSentence(b, r, lo, hi)
	}
	return b
}

// titleCase capitalises the first letter of each word.
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// slugify lowercases s and joins its letters and digits with hyphens.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c < 128 && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
