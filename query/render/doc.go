// Package render holds what every answer of the read side renders alike:
// the formats (FormatText, FormatJSON, FormatJSONL), the trust Notice,
// the shown record or page that packs and search share (Item, ItemOf,
// ItemText), the verdict as an answer reports it (IndexState,
// IndexReason), and the JSON and text helpers (Marshal, OrDash, KV).
//
// It may import query/rank (an item shows its score's reasons) and the
// pure code of the stages; no answer kind of query.
package render
