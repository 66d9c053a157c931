package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-kb/cairn/stages/load"
)

// BenchmarkRun times the rules stage alone on each golden base, loaded
// once: `go test ./stages/rules -run '^$' -bench Run`.
func BenchmarkRun(b *testing.B) {
	for _, name := range []string{"demo", "edge", "rules"} {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join("..", "..", "golden", name, "base")
			loaded, err := load.Run(b.Context(), load.Input{FS: os.DirFS(dir)})
			if err != nil {
				b.Fatal(err)
			}
			in := Input{Config: loaded.Base.Config, Voices: loaded.Base.Voices, Terms: loaded.Base.Terms,
				Log: loaded.Base.Log, Content: loaded.Base.Content, RulesFiles: loaded.Base.RulesFiles, AsOf: today}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(b.Context(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
