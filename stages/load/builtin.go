package load

import (
	"embed"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// builtinFiles are the starter voice profiles cairn ships: a name no
// point declares, and that the base's voices folder does not hold, falls
// back to the built-in profile of that name, and `cairn context --profile`
// answers them outside any base.
//
//go:embed builtin/*.yaml
var builtinFiles embed.FS

var builtin = sync.OnceValue(func() []model.Voice {
	entries, _ := builtinFiles.ReadDir("builtin")
	var voices []model.Voice
	for _, e := range entries {
		file := path.Join("builtin", e.Name())
		data, _ := builtinFiles.ReadFile(file)
		var ds diag.List
		v, ok := decodeVoice(file, strings.TrimSuffix(e.Name(), ".yaml"), data, &ds)
		if !ok || ds.Len() > 0 {
			panic("load: built-in voice " + file + " does not load: " + diag.Join(ds.Sorted()))
		}
		v.Path = "" // no file of the base holds it
		voices = append(voices, v)
	}
	slices.SortFunc(voices, func(a, b model.Voice) int { return strings.Compare(a.Name, b.Name) })
	return voices
})

// BuiltinVoices are the starter voice profiles built into cairn, sorted
// by name.
func BuiltinVoices() []model.Voice { return slices.Clone(builtin()) }

// BuiltinVoice is the built-in voice profile of that name.
func BuiltinVoice(name string) (model.Voice, bool) {
	for _, v := range builtin() {
		if v.Name == name {
			return v, true
		}
	}
	return model.Voice{}, false
}
