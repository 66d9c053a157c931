// Package kapi converts a kapi project's governance into cairn's: its
// terms store (terms.json, concepts with one term per locale and status)
// into governance/terms.yaml, and its voice profiles (voice.yaml and
// profiles/<name>/voice.yaml) into governance/voices/<name>.yaml.
//
// In: the kapi project's folder, as an fs.FS (the folder holding .kapi/,
// or the .kapi folder itself). Out: the files to write, with paths below
// the governance folder, and what could not be mapped, one finding each
// (the kapi file, the key, what became of it), in a fixed order.
//
// It must not write anything, read outside its FS, or read the clock: the
// same kapi files give the same bytes, so an import can be rerun and
// diffed. Every voice it writes decodes without a mistake through the load
// stage's own voice decoder.
package kapi
