package tables

import "github.com/cairn-kb/cairn/artifacts"

// heldMax bounds what Hold keeps in memory, counted as the bytes of the
// files it holds: at 100,000 items they are some 28 MB, and a base
// several times larger is still read as a process per question reads it.
const heldMax = 96 << 20

// Hold keeps in memory the artifacts every request reads much of, for a
// long-lived process: docs.key decoded whole (a request decodes the keys
// of thousands of candidates), and terms.tsv as bytes (a request probes it
// per query term, and an identifier sweeps all of it). What a request
// reads little of by range (a few hundred docs.tsv rows, its terms'
// postings, edges) stays read from the files, so the process holds less
// than the artifacts. Each is held only while the total stays under
// heldMax, in that order; what is not held is read from the file as
// before, so answers are the same bytes either way. It must be called
// before the reader is shared.
func (r *Reader) Hold() {
	budget := int64(heldMax)
	if r.key.size <= budget && r.holdKeys() {
		budget -= r.key.size
	}
	if r.terms.size <= budget {
		r.terms.hold()
	}
}

// holdKeys decodes docs.key whole into r.held, where Keys answers from.
// The file is read in one sweep and its bytes are not kept. It holds
// nothing, and reports false, when a line does not decode: Keys then
// reads the file as before, and reports the damaged line when a request
// meets it.
func (r *Reader) holdKeys() bool {
	if r.items == 0 {
		return false
	}
	width := r.keyWidth
	data, err := r.key.readAt(int64(width), r.items*width)
	if err != nil || len(data) != r.items*width {
		return false
	}
	var kd artifacts.KeyDecoder
	held := make([]artifacts.Key, r.items)
	for ord := range held {
		if held[ord], err = kd.Decode(ord+2, data[ord*width:(ord+1)*width], len(r.fields)); err != nil {
			return false
		}
	}
	r.held = held
	return true
}
