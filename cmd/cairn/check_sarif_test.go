package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// validateSARIF checks a SARIF log against what the SARIF 2.1.0 schema
// (sarif-schema-2.1.0.json) requires of the objects cairn writes: each
// object's required properties, their types, the enumerations and the
// minimums, and that no property outside the schema's is written. A code
// scanning upload refuses a log that breaks these.
func validateSARIF(t *testing.T, data []byte) {
	t.Helper()
	var log map[string]any
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("the SARIF log is not JSON: %v", err)
	}
	v := sarifValidator{t: t}
	v.object("sarifLog", log, []string{"version", "runs"}, []string{"version", "$schema", "runs"})
	if log["version"] != "2.1.0" {
		v.fail("sarifLog.version", "is %v, the schema's enum is [2.1.0]", log["version"])
	}
	if s, _ := log["$schema"].(string); !strings.HasPrefix(s, "https://") || !strings.Contains(s, "sarif") {
		v.fail("sarifLog.$schema", "is %q, not the schema's URI", s)
	}
	runs := v.array("sarifLog.runs", log["runs"])
	if len(runs) != 1 {
		v.fail("sarifLog.runs", "holds %d runs, want 1", len(runs))
	}
	for i, r := range runs {
		v.run(fmt.Sprintf("runs[%d]", i), r)
	}
}

// sarifLevels is the schema's enum of result and configuration levels.
var sarifLevels = []string{"none", "note", "warning", "error"}

type sarifValidator struct{ t *testing.T }

func (v sarifValidator) fail(at, format string, args ...any) {
	v.t.Helper()
	v.t.Errorf("SARIF %s "+format, append([]any{at}, args...)...)
}

// object checks that x is an object holding every required property and
// none outside allowed.
func (v sarifValidator) object(at string, x any, required, allowed []string) map[string]any {
	v.t.Helper()
	m, ok := x.(map[string]any)
	if !ok {
		v.fail(at, "is %T, want an object", x)
		return nil
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			v.fail(at, "lacks the required property %q", k)
		}
	}
	for k := range m {
		if !slices.Contains(allowed, k) {
			v.fail(at, "has property %q, which this validator does not know the schema for", k)
		}
	}
	return m
}

func (v sarifValidator) array(at string, x any) []any {
	v.t.Helper()
	a, ok := x.([]any)
	if !ok {
		v.fail(at, "is %T, want an array", x)
	}
	return a
}

func (v sarifValidator) str(at string, x any) string {
	v.t.Helper()
	s, ok := x.(string)
	if !ok || s == "" {
		v.fail(at, "is %v, want a non-empty string", x)
	}
	return s
}

// integer checks a JSON number that is a whole number at least min.
func (v sarifValidator) integer(at string, x any, min int) int {
	v.t.Helper()
	f, ok := x.(float64)
	if !ok || f != float64(int(f)) || int(f) < min {
		v.fail(at, "is %v, want an integer >= %d", x, min)
	}
	return int(f)
}

// message checks a message or multiformatMessageString: text required.
func (v sarifValidator) message(at string, x any) {
	v.t.Helper()
	m := v.object(at, x, []string{"text"}, []string{"text"})
	v.str(at+".text", m["text"])
}

func (v sarifValidator) run(at string, x any) {
	v.t.Helper()
	run := v.object(at, x, []string{"tool"}, []string{"tool", "columnKind", "results"})
	if ck := run["columnKind"]; ck != "unicodeCodePoints" && ck != "utf16CodeUnits" {
		v.fail(at+".columnKind", "is %v, the schema's enum is [utf16CodeUnits unicodeCodePoints]", ck)
	}
	tool := v.object(at+".tool", run["tool"], []string{"driver"}, []string{"driver"})
	driver := v.object(at+".tool.driver", tool["driver"], []string{"name"}, []string{"name", "version", "informationUri", "rules"})
	v.str(at+".tool.driver.name", driver["name"])
	v.str(at+".tool.driver.version", driver["version"])
	if u := v.str(at+".tool.driver.informationUri", driver["informationUri"]); !strings.HasPrefix(u, "https://") {
		v.fail(at+".tool.driver.informationUri", "is %q, want an absolute URI", u)
	}
	var ids []string
	for i, r := range v.array(at+".tool.driver.rules", driver["rules"]) {
		rat := fmt.Sprintf("%s.tool.driver.rules[%d]", at, i)
		// The schema requires only id; GitHub's code scanning also flags a
		// rule without help, so it is required here.
		rule := v.object(rat, r, []string{"id", "help"}, []string{"id", "shortDescription", "fullDescription", "help", "defaultConfiguration"})
		id := v.str(rat+".id", rule["id"])
		if slices.Contains(ids, id) {
			v.fail(rat+".id", "%q is listed twice", id)
		}
		ids = append(ids, id)
		v.message(rat+".shortDescription", rule["shortDescription"])
		v.message(rat+".fullDescription", rule["fullDescription"])
		v.message(rat+".help", rule["help"])
		cfg := v.object(rat+".defaultConfiguration", rule["defaultConfiguration"], nil, []string{"level"})
		if !slices.Contains(sarifLevels, cfg["level"].(string)) {
			v.fail(rat+".defaultConfiguration.level", "is %v, not one of %v", cfg["level"], sarifLevels)
		}
	}
	results := v.array(at+".results", run["results"])
	if len(results) == 0 {
		v.fail(at+".results", "is empty; the golden bases have findings")
	}
	for i, r := range results {
		rat := fmt.Sprintf("%s.results[%d]", at, i)
		res := v.object(rat, r, []string{"message"}, []string{"ruleId", "ruleIndex", "level", "message", "locations"})
		v.message(rat+".message", res["message"])
		id := v.str(rat+".ruleId", res["ruleId"])
		if idx := v.integer(rat+".ruleIndex", res["ruleIndex"], 0); idx >= len(ids) || ids[idx] != id {
			v.fail(rat+".ruleIndex", "%d does not name rule %q in tool.driver.rules", idx, id)
		}
		if l, _ := res["level"].(string); !slices.Contains(sarifLevels, l) {
			v.fail(rat+".level", "is %v, not one of %v", res["level"], sarifLevels)
		}
		locs := v.array(rat+".locations", res["locations"])
		if len(locs) != 1 {
			v.fail(rat+".locations", "holds %d locations, want 1", len(locs))
		}
		for j, l := range locs {
			lat := fmt.Sprintf("%s.locations[%d]", rat, j)
			loc := v.object(lat, l, nil, []string{"physicalLocation"})
			// physicalLocation: anyOf required [address] or [artifactLocation].
			phys := v.object(lat+".physicalLocation", loc["physicalLocation"], []string{"artifactLocation"}, []string{"artifactLocation", "region"})
			art := v.object(lat+".physicalLocation.artifactLocation", phys["artifactLocation"], []string{"uri"}, []string{"uri"})
			if u := v.str(lat+".physicalLocation.artifactLocation.uri", art["uri"]); strings.HasPrefix(u, "/") || strings.Contains(u, " ") {
				v.fail(lat+".physicalLocation.artifactLocation.uri", "%q is not a relative URI reference", u)
			}
			reg := v.object(lat+".physicalLocation.region", phys["region"], []string{"startLine", "startColumn"}, []string{"startLine", "startColumn", "endLine", "endColumn"})
			sl := v.integer(lat+".region.startLine", reg["startLine"], 1)
			sc := v.integer(lat+".region.startColumn", reg["startColumn"], 1)
			el := v.integer(lat+".region.endLine", reg["endLine"], 1)
			ec := v.integer(lat+".region.endColumn", reg["endColumn"], 1)
			if el < sl || el == sl && ec < sc {
				v.fail(lat+".region", "ends (%d:%d) before it starts (%d:%d)", el, ec, sl, sc)
			}
		}
	}
}
