package rank

import (
	"time"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/words"
)

// Ranking is one query ranked over a corpus: the scores of the items its
// terms match in the window, shared by packs and search.
type Ranking struct {
	Corpus corpus.Corpus
	Words  []string  // the query as given, for complete URIs (see uriTerm)
	AsOf   time.Time // the as-of instant recency is measured from
	Parsed question.Parsed

	Window     question.Window
	Win        *words.Window
	Terms      []*words.Stats
	roles      []string // role flags the query names (private, received)
	Event      bool     // the question asks for an event: records first (see eventQuestion)
	Pool       []*Scored
	avgLen     []int             // each field's average length over the hits (see averageLengths)
	facts      map[int]textFacts // what items' text says of the query, by ordinal (see textFactsOf)
	folds      []string          // the terms' stems, by term, "" for an identifier (see textFactsOf)
	idents     []bool            // by parsed term: identifier-shaped (see coverage)
	lowerBuf   []byte            // a passage lower-cased (see lowered)
	fieldIndex map[string]int    // field names to their index (see fieldAt)
	weight     map[string]int    // field weights by name, for excerpts
}
