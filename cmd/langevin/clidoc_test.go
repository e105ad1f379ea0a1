package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/experiment"
)

// samplersSection returns the "Samplers (--sampler NAME):" section of a
// `run -h` text: from that line to the first blank line.
func samplersSection(s string) string {
	i := strings.Index(s, "Samplers (--sampler NAME):\n")
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j+1]
	}
	return s
}

// TestCLIDocMatchesRegistry keeps docs/cli.md true to the sampler registry:
// the `--sampler NAME` row of the flag table names every registered sampler
// (in backquotes) and no unregistered one, and the `langevin run -h` block's
// sampler list is the one the command prints. With LANGEVIN_UPDATE_DOCS=1
// it rewrites the whole `run -h` block from the command's output instead
// (then add the new names to the table row by hand).
func TestCLIDocMatchesRegistry(t *testing.T) {
	const path = "../../docs/cli.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	code, help, _ := runMain("run", "-h")
	if code != 0 {
		t.Fatalf("run -h: exit %d", code)
	}
	const head = "## `langevin run -h`"
	hi := strings.Index(doc, head)
	if hi < 0 {
		t.Fatalf("%s: no %q section", path, head)
	}
	open := strings.Index(doc[hi:], "```\n")
	if open < 0 {
		t.Fatalf("%s: no code block under %q", path, head)
	}
	start := hi + open + len("```\n")
	end := strings.Index(doc[start:], "```\n")
	if end < 0 {
		t.Fatalf("%s: unterminated code block under %q", path, head)
	}
	end += start
	if os.Getenv("LANGEVIN_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(doc[:start]+strings.TrimRight(help, "\n")+"\n"+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: run -h block rewritten", path)
		return
	}
	if got, want := samplersSection(doc[start:end]), samplersSection(help); got != want {
		t.Errorf("%s: the sampler list of the `run -h` block differs from the command's (regenerate: LANGEVIN_UPDATE_DOCS=1 go test ./cmd/langevin -run TestCLIDocMatchesRegistry)\n--- doc\n%s--- run -h\n%s", path, got, want)
	}
	var row string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "| `--sampler NAME` |") {
			row = l
		}
	}
	if row == "" {
		t.Fatalf("%s: no `--sampler NAME` row in the flag table", path)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z][a-z0-9-]*)`").FindAllStringSubmatch(row, -1) {
		listed[m[1]] = true
	}
	known := map[string]bool{}
	for _, n := range fit.SamplerNames() {
		known[n] = true
		if !listed[n] {
			t.Errorf("%s: the `--sampler NAME` row does not name the registered sampler `%s`", path, n)
		}
	}
	// Backquoted words of the row that are not samplers: model names and
	// the like, which the row may mention.
	notSamplers := map[string]bool{"mlp": true}
	for n := range listed {
		if !known[n] && !notSamplers[n] {
			t.Errorf("%s: the `--sampler NAME` row names `%s`, which is not a registered sampler", path, n)
		}
	}
}

// TestFiguresDocCommands keeps docs/figures.md's table of the source
// documents' figures, tables and methods true: every row has a command (no
// "—" in the command column), every `exp NAME` is a registered experiment
// and every sampler named by --sampler is registered.
func TestFiguresDocCommands(t *testing.T) {
	const path = "../../docs/figures.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	const head = "## Every figure, table and method of the five documents, and its command"
	i := strings.Index(doc, head)
	if i < 0 {
		t.Fatalf("%s: no section %q", path, head)
	}
	known := map[string]bool{}
	for _, n := range fit.SamplerNames() {
		known[n] = true
	}
	expRe := regexp.MustCompile("`exp ([a-z0-9-]+)")
	samRe := regexp.MustCompile(`--sampler ((?:[a-z0-9-]+(?:\\\|)?)+)`)
	rows := 0
	for _, line := range strings.Split(doc[i:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") || (rows > 0 && strings.TrimSpace(line) == "") {
			break // the table ends at the first blank line after its rows
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| document") || strings.HasPrefix(line, "|---") {
			continue
		}
		cols := strings.Split(strings.ReplaceAll(line, `\|`, "¦"), " | ")
		if len(cols) < 4 {
			t.Errorf("%s: row with %d columns: %s", path, len(cols), line)
			continue
		}
		rows++
		cmd := strings.TrimSpace(cols[2])
		if cmd == "" || cmd == "—" || cmd == "-" {
			t.Errorf("%s: no command for %s / %s", path, cols[0], cols[1])
		}
		for _, m := range expRe.FindAllStringSubmatch(cmd, -1) {
			if _, ok := experiment.Lookup(m[1]); !ok {
				t.Errorf("%s: %s names the experiment %q, which is not registered", path, cols[1], m[1])
			}
		}
		for _, m := range samRe.FindAllStringSubmatch(strings.ReplaceAll(cmd, "¦", `\|`), -1) {
			for _, n := range strings.Split(m[1], `\|`) {
				if !known[n] {
					t.Errorf("%s: %s names --sampler %s, which is not registered", path, cols[1], n)
				}
			}
		}
	}
	if rows < 49 {
		t.Errorf("%s: %d rows in the table; expected the full list (49 or more)", path, rows)
	}
}
