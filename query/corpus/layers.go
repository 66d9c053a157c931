package corpus

import "github.com/cairn-kb/cairn/stages/lib/model"

// LayerNames are the corpus layers, in the order messages list them.
var LayerNames = []string{"events", "index", "wiki", "projects", "tasks"}

// Layers maps each corpus layer's name to its folder.
func Layers(l model.Layers) map[string]string {
	return map[string]string{"events": l.Events, "index": l.Index, "wiki": l.Wiki, "projects": l.Projects, "tasks": l.Tasks}
}
