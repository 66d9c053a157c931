package main

import (
	"fmt"
	"strings"
	"time"
)

// Shape of the synthetic organisation. Fixed numbers, not scaled with the
// record count: a team does not grow because it keeps more history.
const (
	peopleCount     = 320 // staff referenced by relation fields
	externalCount   = 40  // outside contacts who only send mail
	identityCount   = 100 // people with an identity and aliases in cairn.yaml
	repoCount       = 42  // repositories
	projectCount    = 30  // projects/ pages
	termCount       = 200 // governance/terms.yaml entries
	logOpCount      = 500 // governance/log.jsonl lines
	noteSlugCount   = 120 // distinct note targets in the log
	ticketPrefixLen = 8
)

// firstDay is the first event day of every base. It is a Monday, so the
// weekend days of the window are quieter, as in a real team.
var firstDay = time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)

var (
	firstNames = strings.Fields(`marc ana bruno chloe dev elena farid greta hugo ines jonas kira
leo maya nils olga pablo quinn rosa sami tara umar vera wen xavi yara zeno amira boris cleo
dario emma felix gina hamid iris jules kofi lena milo nora oscar priya ravi sofia timo`)
	lastNames = strings.Fields(`dupont silva okafor novak tanaka berg moreau rossi kowalski
haddad lindqvist park schmidt nguyen costa fischer ortiz larsen meyer ivanova petit romano
sato weber klein garcia dubois hansen murphy kaur adeyemi yilmaz fontaine horvat bauer
mendes quist reyes vogel abbott brandt castillo delgado eriksen faure galli`)
	repoNames = strings.Fields(`harbor ledger beacon quarry lantern atlas compass meridian
keystone driftwood tessera halyard bramble cinder foundry gantry juniper kestrel lodestar
marlin nimbus orchard pylon quill rampart sextant tiller umbra vesper wicket yarrow zephyr
anvil bellows cairn dovetail ember flint garnet hearth ingot jetty`)
	ticketPrefixes = []string{"ABC", "OPS", "WEB", "DATA", "INFRA", "PAY", "SEC", "MOB"}
	agentClients   = []string{"claude-code", "codex", "cursor", "aider"}
)

// person is someone records refer to. URI is their canonical entity URI.
type person struct {
	First, Last string
	Name        string // "Marc Dupont"
	Slug        string // "marc-dupont", the identity name and log actor
	Email       string // "marc.dupont@acme.test"
	Login       string // "mdupont"
	URI         string // "person:email/marc.dupont@acme.test"
	AliasURI    string // the noreply address commits sometimes carry
}

// repo is a repository; URI is its entity URI.
type repo struct {
	Owner, Name string
	FullName    string // "github.com/acme/harbor"
	URI         string // "repo:github.com/acme/harbor"
}

// world is everything generation shares between files: the calendar, the
// people, the repositories, the vocabulary and the record plan. It is
// built once from the parameters and only read afterwards, so documents
// can be generated in parallel.
type world struct {
	p         genParams
	days      []string // YYYY-MM-DD
	compact   []string // YYYYMMDD
	people    []person
	externals []person
	repos     []repo
	voc       *vocabulary
	personZ   *zipf // hub people: a few are on most records
	repoZ     *zipf // hub repositories
	ticketZ   *zipf // hot tickets, referenced from every source
	tickets   int   // size of the ticket pool
	cells     []cell
	terms     []termDef
	wiki      []string // wiki slugs
	projects  []string // project slugs
}

func newWorld(p genParams) *world {
	w := &world{p: p, voc: newVocabulary()}
	for d := range p.Days {
		t := firstDay.AddDate(0, 0, d)
		w.days = append(w.days, t.Format("2006-01-02"))
		w.compact = append(w.compact, t.Format("20060102"))
	}
	for i := range peopleCount + externalCount {
		f := firstNames[i%len(firstNames)]
		l := lastNames[(i/len(firstNames)+i%len(firstNames))%len(lastNames)]
		domain := "acme.test"
		if i >= peopleCount {
			domain = []string{"vendor.test", "partner.test", "client.test"}[i%3]
		}
		email := f + "." + l + "@" + domain
		pp := person{
			First: f, Last: l,
			Name:     titleCase(f + " " + l),
			Slug:     f + "-" + l,
			Email:    email,
			Login:    f[:1] + l,
			URI:      "person:email/" + email,
			AliasURI: "person:email/" + f[:1] + l + "@users.noreply.github.test",
		}
		if i < peopleCount {
			w.people = append(w.people, pp)
		} else {
			w.externals = append(w.externals, pp)
		}
	}
	for i := range repoCount {
		owner := "acme"
		if i%7 == 6 {
			owner = "acme-labs"
		}
		full := "github.com/" + owner + "/" + repoNames[i]
		w.repos = append(w.repos, repo{Owner: owner, Name: repoNames[i], FullName: full, URI: "repo:" + full})
	}
	w.personZ = newZipf(len(w.people), 3)
	w.repoZ = newZipf(len(w.repos), 2)
	w.cells = planCells(p)
	most := 0
	for _, c := range w.cells {
		if c.source == "tickets" {
			most = max(most, c.count)
		}
	}
	w.tickets = max(64, p.Records/10, most*2)
	w.ticketZ = newZipf(w.tickets, 4)
	w.terms = makeTerms(w)
	w.wiki = makeSlugs(w, "wiki-slugs", max(5, p.Records/500))
	w.projects = makeSlugs(w, "project-slugs", projectCount)
	return w
}

func (w *world) person(r *rng) person { return w.people[w.personZ.draw(r)] }
func (w *world) repo(r *rng) repo     { return w.repos[w.repoZ.draw(r)] }

// ticketKey names pool ticket idx: the prefix cycles, the number grows.
func ticketKey(idx int) string {
	return fmt.Sprintf("%s-%d", ticketPrefixes[idx%ticketPrefixLen], 100+idx/ticketPrefixLen)
}

// hotTicket draws a ticket key with hub tickets far more likely.
func (w *world) hotTicket(r *rng) string { return ticketKey(w.ticketZ.draw(r)) }

// ticketsOfDay returns the pool indices of the tickets updated on day d,
// n of them, all distinct: a walk over the pool with a stride coprime to
// its size. It depends only on the seed and the day, so other files
// (the log's evidence) can name records of a tickets document without
// generating it.
func (w *world) ticketsOfDay(d, n int) []int {
	r := newRNG(w.p.Seed, "ticket-walk/"+w.days[d])
	start := r.intn(w.tickets)
	stride := 1
	for {
		stride = r.between(1, w.tickets)
		if gcd(stride, w.tickets) == 1 {
			break
		}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = (start + i*stride) % w.tickets
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// makeSlugs returns n distinct slugs of one or two content words.
func makeSlugs(w *world, stream string, n int) []string {
	r := newRNG(w.p.Seed, stream)
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		s := slugify(w.voc.contentWord(r))
		if r.chance(70) || seen[s] {
			if t := slugify(w.voc.contentWord(r)); t != s {
				s += "-" + t
			}
		}
		if seen[s] {
			s += fmt.Sprintf("-%d", len(out))
		}
		if s == "" || seen[s] || s == "index" || s == "log" {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// cell is one events document: a source on a day with its record count.
type cell struct {
	day    int
	source string
	count  int
}

// planCells splits the record total over days and sources: weekdays
// carry more than weekends, each day a little jitter, each source its own
// share. The largest-remainder method makes the counts add up exactly.
func planCells(p genParams) []cell {
	r := newRNG(p.Seed, "plan")
	dayWeights := make([]int, p.Days)
	for d := range dayWeights {
		wd := firstDay.AddDate(0, 0, d).Weekday()
		base := 10
		if wd == time.Saturday || wd == time.Sunday {
			base = 3
		}
		dayWeights[d] = base * r.between(8, 12)
	}
	var cells []cell
	var weights []int
	total := 0
	for d := range p.Days {
		for _, s := range sources {
			cells = append(cells, cell{day: d, source: s.name})
			wt := dayWeights[d] * s.weight
			weights = append(weights, wt)
			total += wt
		}
	}
	type rem struct{ r, i int }
	rems := make([]rem, len(cells))
	assigned := 0
	for i := range cells {
		q := p.Records * weights[i]
		cells[i].count = q / total
		assigned += cells[i].count
		rems[i] = rem{q % total, i}
	}
	// Hand out what rounding down left over: biggest remainders first,
	// ties by position, so the result never depends on sort stability.
	for k := 0; assigned < p.Records; k++ {
		best := -1
		for j, x := range rems {
			if x.r >= 0 && (best < 0 || x.r > rems[best].r) {
				best = j
			}
		}
		cells[rems[best].i].count++
		rems[best].r = -1
		assigned++
	}
	return cells
}
