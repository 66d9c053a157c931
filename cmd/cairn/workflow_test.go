package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The CI recipes of the ci topic: the GitHub Actions workflow and the pre-commit
// framework's configuration, found by their first lines.
const (
	readmeWorkflowStart  = "name: cairn"
	readmePreCommitStart = "repos:"
	// cairnRepoURL is where the recipes fetch cairn from; the tests
	// redirect it to a local repository.
	cairnRepoURL = "https://github.com/cairn-kb/cairn"
	// moduleRoot is this repository's root, relative to this package.
	moduleRoot = "../.."
)

// readmeYAML returns the one yaml block of the README and the topics whose
// first line is start.
func readmeYAML(t *testing.T, start string) string {
	t.Helper()
	var blocks []readmeBlock
	for _, p := range docPaths() {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, readmeBlocks(p, string(data))...)
	}
	var found []string
	for _, b := range blocks {
		if len(b.info) > 0 && b.info[0] == "yaml" && len(b.lines) > 0 && b.lines[0] == start {
			found = append(found, strings.Join(b.lines, "\n")+"\n")
		}
	}
	if len(found) != 1 {
		t.Fatalf("the README and the topics have %d yaml blocks starting %q, want exactly one", len(found), start)
	}
	return found[0]
}

// workflow is the part of a GitHub Actions workflow these tests read.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []workflowStep    `yaml:"steps"`
	} `yaml:"jobs"`
}

// workflowStep is one step: a command to run, or an action to use.
type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
}

// needTool returns the path of a tool the CI recipes' tests need. .ci/run
// installs each one, so in CI a missing tool fails; elsewhere the test is
// skipped, naming how to install it.
func needTool(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not on PATH in CI (%v); .ci/run installs it", name, err)
	}
	t.Skipf("%s is not on PATH; %s", name, install)
	return ""
}

// TestREADMEWorkflowLint: actionlint finds nothing in the ci topic's workflow
// (action versions it knows as current, inputs the actions take, the
// expressions, and shellcheck on the run steps when shellcheck is there).
func TestREADMEWorkflowLint(t *testing.T) {
	actionlint := needTool(t, "actionlint", "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".github/workflows/cairn.yml"), readmeYAML(t, readmeWorkflowStart))
	cmd := exec.Command(actionlint, "-no-color", ".github/workflows/cairn.yml")
	cmd.Dir = dir
	if code, out := exitAndOutput(t, cmd); code != 0 || out != "" {
		t.Errorf("actionlint on the ci topic's workflow: exit %d\n%s", code, out)
	}
}

// TestREADMEWorkflowRuns runs the README workflow's run steps, in order,
// as a runner would, in a fresh clone of a team's base: the install step
// clones cairn (redirected by git's url.insteadOf to a repository of this
// checkout's source) and builds it; the gate passes on the clone, which
// has no .cairn/; the check writes SARIF for the upload. Then a terms
// change that leaves a rules file stale fails the gate.
func TestREADMEWorkflowRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn from a copy of its source")
	}
	needTool(t, "git", "install git")
	needTool(t, "bash", "install bash")
	var wf workflow
	if err := yaml.Unmarshal([]byte(readmeYAML(t, readmeWorkflowStart)), &wf); err != nil {
		t.Fatalf("the ci topic's workflow: %v", err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("the ci topic's workflow has %d jobs, want one", len(wf.Jobs))
	}
	var steps []workflowStep
	var jobEnv map[string]string
	for _, j := range wf.Jobs {
		steps, jobEnv = j.Steps, j.Env
	}

	src, rev := sourceRepository(t)
	clone, _ := freshRepository(t, "rules") // its content breaks no rule, so the check step passes
	runner := t.TempDir()
	githubPath := filepath.Join(runner, "github_path")
	writeFile(t, githubPath, "")
	vars := map[string]string{}
	for _, m := range []map[string]string{wf.Env, jobEnv} {
		for k, v := range m {
			vars[k] = v
		}
	}
	if vars["CAIRN_REV"] == "" {
		t.Fatal("the ci topic's workflow sets no CAIRN_REV: the install step needs a pinned revision")
	}
	vars["CAIRN_REV"] = rev // the README's own revision is checked by TestREADMEPinnedRevision
	path := os.Getenv("PATH")
	environ := func(step workflowStep) []string {
		env := append(os.Environ(), "CI=true", "GITHUB_ACTIONS=true", "RUNNER_TEMP="+runner, "GITHUB_PATH="+githubPath,
			"GITHUB_WORKSPACE="+clone, "HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(),
			"CAIRN_AS_OF="+goldenAsOf, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=url."+src+".insteadOf", "GIT_CONFIG_VALUE_0="+cairnRepoURL)
		for _, m := range []map[string]string{vars, step.Env} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				env = append(env, k+"="+m[k])
			}
		}
		return append(env, "PATH="+path)
	}
	run := func(step workflowStep) (int, string) {
		script := filepath.Join(runner, "step.sh")
		writeFile(t, script, step.Run)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script) // a runner's default shell
		cmd.Dir, cmd.Env = clone, environ(step)
		code, out := exitAndOutput(t, cmd)
		added, err := os.ReadFile(githubPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range strings.Fields(string(added)) {
			if !strings.Contains(path, dir) {
				path = dir + string(os.PathListSeparator) + path
			}
		}
		return code, out
	}

	var gate workflowStep
	for _, step := range steps {
		if step.Uses != "" {
			// The checkout is the clone, Go is on PATH, and the upload is
			// stood in for by reading the SARIF below.
			action, _, _ := strings.Cut(step.Uses, "@")
			if !slices.Contains([]string{"actions/checkout", "actions/setup-go", "github/codeql-action/upload-sarif"}, action) {
				t.Errorf("step %q uses %s, which this test does not know how to stand in for", step.Name, step.Uses)
			}
			continue
		}
		if code, out := run(step); code != 0 {
			t.Fatalf("step %q: exit %d\n%s", step.Name, code, out)
		}
		if strings.TrimSpace(step.Run) == "cairn build --check" {
			gate = step
		}
	}
	if gate.Run == "" {
		t.Fatal("the ci topic's workflow has no `cairn build --check` step")
	}
	data, err := os.ReadFile(filepath.Join(clone, "cairn.sarif"))
	var sarif struct {
		Version string `json:"version"`
		Runs    []any  `json:"runs"`
	}
	if err != nil || json.Unmarshal(data, &sarif) != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
		t.Errorf("cairn.sarif for the upload: %v, %.200s; want SARIF 2.1.0 with one run", err, data)
	}
	appendFile(t, filepath.Join(clone, "governance/terms.yaml"), forbiddenTermEntry)
	if code, out := run(gate); code != 1 || !strings.Contains(out, "update\tAGENTS.md") {
		t.Errorf("the gate after a terms change: exit %d, want 1 naming AGENTS.md\n%s", code, out)
	}
}

// sourceRepository makes a git repository of this checkout's source, as
// the install step would clone it, and returns its path and revision.
func sourceRepository(t *testing.T) (string, string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "cairn")
	for _, name := range []string{"go.mod", "go.sum", "cmd", "stages", "artifacts", "query", "golden"} {
		from := filepath.Join(moduleRoot, name)
		info, err := os.Stat(from)
		if err != nil {
			t.Fatal(err)
		}
		if !info.IsDir() {
			data, err := os.ReadFile(from)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(src, name), string(data))
			continue
		}
		if err := os.CopyFS(filepath.Join(src, name), os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
	}
	git := gitIn(t, src)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "source")
	return src, strings.TrimSpace(git("rev-parse", "HEAD"))
}

// TestREADMEPinnedRevision: the revision the README's recipes pin is a
// commit of this repository whose hooks manifest has the hooks the
// pre-commit configuration names, and the workflow pins the same one.
// It needs the repository's history, which a shallow clone lacks.
func TestREADMEPinnedRevision(t *testing.T) {
	needTool(t, "git", "install git")
	config := readmeYAML(t, readmePreCommitStart)
	var pc struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Rev   string `yaml:"rev"`
			Hooks []struct {
				ID string `yaml:"id"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if err := yaml.Unmarshal([]byte(config), &pc); err != nil || len(pc.Repos) != 1 || pc.Repos[0].Repo != cairnRepoURL {
		t.Fatalf("the ci topic's .pre-commit-config.yaml: %v, %+v; want one repo, %s", err, pc, cairnRepoURL)
	}
	rev := pc.Repos[0].Rev
	var wf workflow
	if err := yaml.Unmarshal([]byte(readmeYAML(t, readmeWorkflowStart)), &wf); err != nil || wf.Env["CAIRN_REV"] != rev {
		t.Errorf("the workflow pins CAIRN_REV %q (%v), the pre-commit configuration %q: want the same commit", wf.Env["CAIRN_REV"], err, rev)
	}
	cmd := exec.Command("git", "rev-parse", "--is-shallow-repository")
	cmd.Dir = moduleRoot
	shallow, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the pinned revision cannot be looked up", err)
	}
	if strings.TrimSpace(string(shallow)) == "true" {
		t.Skip("a shallow clone: the pinned revision may be outside its history")
	}
	cmd = exec.Command("git", "show", rev+":.pre-commit-hooks.yaml")
	cmd.Dir = moduleRoot
	manifest, err := cmd.Output()
	if err != nil {
		t.Fatalf("the ci topic pins %s, which this repository does not have with a .pre-commit-hooks.yaml: %v", rev, err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(manifest, &hooks); err != nil {
		t.Fatal(err)
	}
	for _, h := range pc.Repos[0].Hooks {
		if !slices.ContainsFunc(hooks, func(m preCommitHook) bool { return m.ID == h.ID }) {
			t.Errorf("the ci topic's configuration names hook %s, which %s's manifest lacks", h.ID, rev)
		}
	}
}
