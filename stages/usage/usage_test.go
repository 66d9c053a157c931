package usage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

var storeTerms = []model.Term{
	{ID: "harbor", Term: "Harbor", Status: model.StatusPreferred, Kind: model.KindName},
	{ID: "whitelist", Term: "whitelist", Status: model.StatusForbidden, Pattern: "whitelist(s|ed|ing)?"},
	{ID: "robot-account", Term: "robot account", Status: model.StatusDeprecated, ValidUntil: "2020-01-01"},
	{ID: "api-key", Term: "API key", Status: model.StatusForbidden, Paths: []string{"docs/api/**"}},
	{ID: "unused", Term: "nowhere to be found", Status: model.StatusProposed},
}

var storeContent = []model.ContentFile{
	{Path: "docs/a.md", Text: "---\ntitle: Harbor\n---\nHarbor and harbor. A robot\naccount."},
	{Path: "blog/b.md", Text: "Whitelisted, whitelists. No api key here: an API-key is not an API key."},
	{Path: "README.md", Text: "HARBOR harbors"},
	{Path: "docs/empty.md", Text: ""},
}

const storeUsage = "#cairn usage v7\tterm\tpath\tcount\n" +
	"api-key\t.\t2\n" +
	"api-key\tblog/b.md\t2\n" +
	"harbor\t.\t4\n" +
	"harbor\tdocs/a.md\t3\n" +
	"harbor\tREADME.md\t1\n" +
	"robot-account\t.\t1\n" +
	"robot-account\tdocs/a.md\t1\n" +
	"unused\t.\t0\n" +
	"whitelist\t.\t2\n" +
	"whitelist\tblog/b.md\t2\n"

func runUsage(t testing.TB, in Input) Output {
	t.Helper()
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRun counts every term whatever its status, kind, paths or window,
// and renders usage.tsv, and content.tsv with the files' points.
func TestRun(t *testing.T) {
	files := []artifacts.ContentFile{{Path: "blog/b.md"}, {Path: "docs/a.md", Point: "docs"}}
	out := runUsage(t, Input{Terms: storeTerms, Content: storeContent, Files: files})
	if len(out.Files) != 2 || out.Files[0].Path != artifacts.UsagePath || out.Files[1].Path != artifacts.ContentPath {
		t.Fatalf("files = %v", out.Files)
	}
	if got, want := string(out.Files[1].Data), "#cairn content v7\tpath\tpoint\nblog/b.md\t-\ndocs/a.md\tdocs\n"; got != want {
		t.Errorf("content.tsv:\n got %q\nwant %q", got, want)
	}
	if got := string(out.Files[0].Data); got != storeUsage {
		t.Errorf("usage.tsv:\n got %q\nwant %q", got, storeUsage)
	}
	decoded, err := artifacts.DecodeUsage(out.Files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decoded, out.Usage); diff != "" {
		t.Errorf("Usage is not usage.tsv decoded (-file +Usage):\n%s", diff)
	}
}

// TestRunKept: counts of files not read again come from Kept; a kept row
// for a file read this time, or for a term the store no longer has, is
// ignored.
func TestRunKept(t *testing.T) {
	full := runUsage(t, Input{Terms: storeTerms, Content: storeContent})
	kept := []artifacts.TermUsage{
		{Term: "harbor", Total: 4, Uses: []artifacts.Use{{Path: "docs/a.md", Count: 3}, {Path: "README.md", Count: 99}}},
		{Term: "robot-account", Total: 1, Uses: []artifacts.Use{{Path: "docs/a.md", Count: 1}}},
		{Term: "gone", Total: 5, Uses: []artifacts.Use{{Path: "docs/a.md", Count: 5}}},
	}
	// docs/a.md is not read; README.md is read, so its kept count of 99 is
	// stale and ignored.
	part := runUsage(t, Input{Terms: storeTerms, Content: []model.ContentFile{storeContent[1], storeContent[2], storeContent[3]}, Kept: kept})
	if string(part.Files[0].Data) != string(full.Files[0].Data) {
		t.Errorf("with kept counts:\n%s\nwant the full count:\n%s", part.Files[0].Data, full.Files[0].Data)
	}
}

// TestRunDeterministic: the bytes do not depend on the order of the files
// or on how many workers count them.
func TestRunDeterministic(t *testing.T) {
	content := syntheticContent(200, 2000)
	first := runUsage(t, Input{Terms: syntheticTerms, Content: content})
	shuffled := append([]model.ContentFile(nil), content...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	prev := runtime.GOMAXPROCS(1)
	second := runUsage(t, Input{Terms: syntheticTerms, Content: shuffled})
	runtime.GOMAXPROCS(prev)
	if string(first.Files[0].Data) != string(second.Files[0].Data) {
		t.Errorf("usage.tsv differs between file orders and worker counts")
	}
	if first.Usage[0].Total == 0 {
		t.Errorf("the synthetic content uses no term; the test proves nothing")
	}
}

func TestRunErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		terms []model.Term
		want  string
	}{
		{"repeated id", []model.Term{{ID: "a", Term: "a"}, {ID: "a", Term: "b"}}, `term id "a" is empty or used twice`},
		{"empty id", []model.Term{{Term: "a"}}, `term id "" is empty or used twice`},
		{"bad pattern", []model.Term{{ID: "a", Term: "a", Pattern: "a(b"}}, `term "a": pattern "a(b": error parsing regexp`},
	} {
		_, err := Run(context.Background(), Input{Terms: c.terms, Content: storeContent})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one holding %q", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Input{Terms: storeTerms, Content: storeContent}); err != context.Canceled {
		t.Errorf("Run on a cancelled context = %v, want context.Canceled", err)
	}
}

// syntheticTerms are shaped like a real store: names, multi-word terms,
// single words, and a few with patterns.
var syntheticTerms = func() []model.Term {
	var terms []model.Term
	for i, w := range syntheticWords[:60] {
		t := model.Term{ID: fmt.Sprintf("t%03d", i), Term: w, Status: model.StatusPreferred}
		switch i % 10 {
		case 0:
			t.Term = w + " " + syntheticWords[i+1]
		case 1:
			t.Term = strings.ToUpper(w[:1]) + w[1:] + " Cloud"
		case 2:
			t.Pattern = "(s|es|ed|ing)?"
		}
		terms = append(terms, t)
	}
	return terms
}()

var syntheticWords = strings.Fields(`the registry harbor token push pull request cache image
	chart deploy retention policy scanner vulnerability replication project member robot account
	quota garbage collection webhook label artifact tag digest manifest layer blob upstream proxy
	mirror endpoint certificate authority domain cluster node volume storage bucket region zone
	tenant role permission audit event trigger schedule retry backoff timeout latency throughput
	metric alert dashboard incident runbook rollback canary release branch commit review merge
	conflict rebase pipeline stage job runner agent secret vault rotation expiry renewal invoice
	pricing discount coupon refund checkout cart order shipment warehouse inventory supplier`)

// syntheticContent makes n files of about size bytes each from the
// synthetic words, with punctuation, case and line breaks mixed in.
func syntheticContent(n, size int) []model.ContentFile {
	rng := rand.New(rand.NewPCG(11, 7))
	seps := []string{" ", " ", " ", ", ", ". ", "\n", " - ", "\n\n"}
	files := make([]model.ContentFile, n)
	for i := range files {
		var b strings.Builder
		for b.Len() < size {
			w := syntheticWords[rng.IntN(len(syntheticWords))]
			if rng.IntN(8) == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			if rng.IntN(20) == 0 {
				w += "s"
			}
			b.WriteString(w)
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		files[i] = model.ContentFile{Path: fmt.Sprintf("docs/%04d.md", i), Text: b.String()}
	}
	return files
}

// BenchmarkRun measures the stage's throughput in content bytes per
// second (go test -bench Run ./stages/usage).
func BenchmarkRun(b *testing.B) {
	content := syntheticContent(1000, 1000)
	total := 0
	for _, f := range content {
		total += len(f.Text)
	}
	b.SetBytes(int64(total))
	for b.Loop() {
		runUsage(b, Input{Terms: syntheticTerms, Content: content})
	}
}

// BenchmarkCount measures the matcher alone, one worker.
func BenchmarkCount(b *testing.B) {
	content := syntheticContent(1000, 1000)
	m, err := newMatcher(syntheticTerms)
	if err != nil {
		b.Fatal(err)
	}
	c := m.newCounter()
	total := 0
	for _, f := range content {
		total += len(f.Text)
	}
	b.SetBytes(int64(total))
	for b.Loop() {
		for _, f := range content {
			m.count(f.Text, c)
		}
	}
}
