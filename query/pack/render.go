package pack

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// Answer is a delivered context pack.
type Answer struct {
	Query   string        `json:"query"`
	Items   []render.Item `json:"items"`
	Receipt Receipt       `json:"receipt"`
}

// Receipt explains how a pack was made.
type Receipt struct {
	Query         string   `json:"query"`
	Terms         []string `json:"terms"`
	FilteredTerms []string `json:"filtered_terms"`
	// Order names how the candidates were ordered: "relevance"; "last"
	// (the query's boundary operator: dated evidence first, newest
	// first); or "event" (a question asking when something happened or
	// which record did it: records first among items matching as many
	// terms).
	Order             string          `json:"order"`
	Window            question.Window `json:"window"`
	AsOf              string          `json:"as_of"`
	Budget            int             `json:"budget"`
	Format            string          `json:"format"`
	UsedTokens        int             `json:"used_tokens"`
	EncodedTokens     int             `json:"encoded_tokens"`
	Candidates        int             `json:"candidates"`
	Selected          int             `json:"selected"`
	Dropped           []Dropped       `json:"dropped"`
	DroppedTotal      int             `json:"dropped_total"`
	RejectedPins      []RejectedPin   `json:"rejected_pins"`
	RelevanceFloor    int             `json:"relevance_floor"`
	RecencyModel      []HalfLife      `json:"recency_model"`
	ConsultedBodies   []string        `json:"consulted_bodies"`
	TruncatedEntities []string        `json:"truncated_entities"`
	// UnexpandedSeeds are --expand seeds whose outgoing neighbourhood was
	// too large to follow: expansion fails closed for them.
	UnexpandedSeeds []string          `json:"unexpanded_seeds,omitempty"`
	Index           render.IndexState `json:"index"`
	InputDigest     string            `json:"input_digest"`
	// SinceReceipt is the snapshot a delta pack was made against ("" for
	// a whole pack); Changed counts the candidates new or changed since
	// it, which are all a delta pack chooses from.
	SinceReceipt string `json:"since_receipt"`
	Changed      int    `json:"changed"`
	// Deleted names the first maxDeletedDetail of the snapshot's URIs that
	// the base no longer holds, in URI order; DeletedTotal counts them all.
	Deleted      []string `json:"deleted"`
	DeletedTotal int      `json:"deleted_total"`
	// SavedReceipt describes the snapshot --save-receipt saved under
	// input_digest; absent when none was saved.
	SavedReceipt   *SavedReceipt `json:"saved_receipt,omitempty"`
	RankingVersion int           `json:"ranking_version"`
	ToolVersion    string        `json:"tool_version"`
	Notice         string        `json:"notice"`
	Warning        string        `json:"warning"`
}

// SavedReceipt is the snapshot a pack saved: how many candidate URIs it
// holds, and how many candidates it left out for its cap (ranked last).
type SavedReceipt struct {
	URIs   int `json:"uris"`
	Capped int `json:"capped"`
}

// Dropped is a candidate that did not make the pack.
type Dropped struct {
	URI string `json:"uri"`
	// Reason is budget (it does not fit what the budget leaves),
	// source_cap (its source already holds 40% of the pack) or
	// page_share (the slots left are kept for matching pages).
	Reason string `json:"reason"`
	Score  int    `json:"score"`
	Tokens int    `json:"tokens"`
}

// RejectedPin is a --pin that could not be honoured.
type RejectedPin struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

// HalfLife is one source's recency model.
type HalfLife struct {
	Source       string `json:"source"`
	HalfLifeDays int    `json:"half_life_days"`
}

// tokens is the delivery measure: ⌈bytes/4⌉.
func tokens(n int) int { return (n + 3) / 4 }

// renderPack appends a pack, in its format, to dst.
func renderPack(dst []byte, p *Answer, format string, explain bool) []byte {
	switch format {
	case render.FormatJSON, render.FormatJSONL:
		return renderJSON(dst, p, format == render.FormatJSON)
	}
	size := 1024 + len(render.Notice) // the receipt lines, roughly
	for i := range p.Items {
		size += len(p.Items[i].Text(explain))
	}
	b := slices.Grow(dst, size)
	for i := range p.Items {
		b = append(b, p.Items[i].Text(explain)...)
	}
	r := &p.Receipt
	b = fmt.Appendf(b, "receipt: index=%s %s · window=%s..%s (%s) · as_of=%s · candidates=%d selected=%d dropped=%d\n",
		r.Index.Path, r.Index.State, r.Window.Since, r.Window.Until, escape.Line(render.OrDash(r.Window.DerivedFrom)), r.AsOf, r.Candidates, r.Selected, r.DroppedTotal)
	order := ""
	if r.Order != orderRelevance {
		order = " · order=" + r.Order
	}
	b = fmt.Appendf(b, "receipt: terms=%s · filtered=%s%s · floor=%d · tokens used=%d encoded=%d budget=%d · digest=%s · ranking=%d\n",
		render.ListOrDash(r.Terms), render.ListOrDash(r.FilteredTerms), order, r.RelevanceFloor, r.UsedTokens, r.EncodedTokens, r.Budget, r.InputDigest, r.RankingVersion)
	var notes []string
	if r.Warning != "" {
		notes = append(notes, "warning="+r.Warning)
	}
	for _, p := range r.RejectedPins {
		notes = append(notes, "rejected_pin="+p.URI+" ("+p.Reason+")")
	}
	if len(r.TruncatedEntities) > 0 {
		notes = append(notes, "truncated_entities="+strings.Join(r.TruncatedEntities, ","))
	}
	if len(r.UnexpandedSeeds) > 0 {
		notes = append(notes, "unexpanded_seeds="+strings.Join(r.UnexpandedSeeds, ","))
	}
	if len(r.ConsultedBodies) > 0 {
		notes = append(notes, "consulted_bodies="+strings.Join(r.ConsultedBodies, ","))
	}
	for _, d := range r.Dropped {
		notes = append(notes, fmt.Sprintf("dropped=%s (%s, score %d)", d.URI, d.Reason, d.Score))
	}
	switch unnamed := r.DroppedTotal - len(r.Dropped); {
	case unnamed > 0:
		// Say why the rest go unnamed rather than let the first line's
		// count stand alone.
		why := "no room to name them"
		if len(r.Dropped) >= maxDroppedDetail {
			why = fmt.Sprintf("at most %d are named", maxDroppedDetail)
		}
		notes = append(notes, fmt.Sprintf("dropped_unnamed=%d (%s)", unnamed, why))
	case len(notes) == 0:
		notes = append(notes, "complete: nothing was dropped or rejected")
	}
	// Whether the index answered changes no other note: the indexed and
	// the scanned pack differ only in receipt.index.
	notes = append(deltaNotes(r), notes...)
	if r.Index.Reason != "" {
		notes = append([]string{"index_reason=" + r.Index.Reason}, notes...)
	}
	b = fmt.Appendf(b, "receipt: %s\n", escape.Line(strings.Join(notes, " · ")))
	b = append(b, render.Notice...)
	b = append(b, '\n')
	// The items come escaped (render.Item.Text); the receipt's lines are
	// escaped here, before fixTokens measures the pack.
	if e := escape.Bytes(b[len(dst):]); len(e) != len(b)-len(dst) {
		b = append(b[:len(dst)], e...)
	}
	return b
}

// renderJSON appends {"query", "items", "receipt"} to dst, indented by two
// spaces or on one line. Items are encoded once and kept (render.Item.frag),
// since fitting a budget renders the same items many times over.
func renderJSON(dst []byte, p *Answer, indent bool) []byte {
	b := bytes.NewBuffer(dst)
	nl, in1, in2 := "", "", ""
	if indent {
		nl, in1, in2 = "\n", "  ", "    "
	}
	sep := ":"
	if indent {
		sep = ": "
	}
	b.WriteString("{" + nl + in1 + `"query"` + sep)
	b.Write(render.Marshal(p.Query, "", ""))
	b.WriteString("," + nl + in1 + `"items"` + sep + "[")
	for i := range p.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(nl + in2)
		b.Write(p.Items[i].JSON(indent))
	}
	if len(p.Items) > 0 {
		b.WriteString(nl + in1)
	}
	b.WriteString("]," + nl + in1 + `"receipt"` + sep)
	if indent {
		b.Write(render.Marshal(p.Receipt, in1, "  "))
	} else {
		b.Write(render.Marshal(p.Receipt, "", ""))
	}
	b.WriteString(nl + "}\n")
	return b.Bytes()
}

// fixTokens renders until encoded_tokens states the output's own size;
// the number's digits can change the size, so a few rounds may be needed.
// Every round renders into dst's storage: fitting a budget measures many
// packs, and only their sizes are kept.
func fixTokens(dst []byte, p *Answer, format string, explain bool) []byte {
	out := dst[:0]
	for range 8 {
		out = renderPack(out[:0], p, format, explain)
		t := tokens(len(out))
		if t == p.Receipt.EncodedTokens {
			return out
		}
		p.Receipt.EncodedTokens = t
	}
	// The size oscillates between two digit counts; settle on the larger.
	p.Receipt.EncodedTokens = max(p.Receipt.EncodedTokens, tokens(len(out)))
	out = renderPack(out[:0], p, format, explain)
	for tokens(len(out)) < p.Receipt.EncodedTokens {
		out = append(out[:len(out)-1], ' ', '\n') // pad so the statement holds
	}
	return out
}
