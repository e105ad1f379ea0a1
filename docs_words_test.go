package langevin_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The user documents (README.md, docs/*.md) say what to run and what it
// gives; they do not speak of how the project was built: no "session", no
// "helper", no issue numbers, no dated narratives (a date such as 2026-11-26) and no commit
// hashes in the prose (measurements are tied to the command that
// regenerates them, not to a commit).
func TestDocsHaveNoWorkLog(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	rules := []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`(?i)\bsessions?\b`), "a work session"},
		{regexp.MustCompile(`(?i)\bhelpers?\b`), "a helper"},
		{regexp.MustCompile(`(?i)\bissues? #?[0-9]+`), "an issue of the tracker"},
		{regexp.MustCompile(`\b20[0-9]{2}-[01][0-9](-[0-3][0-9])?\b`), "a date"},
		// 7 to 40 hexadecimal digits with at least one letter and one digit.
		{regexp.MustCompile(`\b(?:[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*|[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*)\b`), "a commit hash"},
	}
	// A Go module's pseudo-version names a commit by design.
	pseudo := regexp.MustCompile(`v[0-9]+\.[0-9]+\.[0-9]+-[0-9]{14}-[0-9a-f]{12}`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			line = pseudo.ReplaceAllString(line, "")
			for _, r := range rules {
				for _, m := range r.re.FindAllString(line, -1) {
					if r.what == "a commit hash" && (len(m) < 7 || len(m) > 40) {
						continue
					}
					t.Errorf("%s:%d: %s (%q): say what to run and what it gives, and put measurements in a table tied to the command that regenerates it", f, n+1, r.what, m)
				}
			}
		}
	}
}

// Every link to a heading of a user document (README.md, docs/*.md), in
// the same page or another, names a heading that exists (GitHub's anchors:
// lower case, punctuation dropped, spaces to hyphens).
func TestDocsAnchors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	heading := regexp.MustCompile(`(?m)^#+\s+(.*)$`)
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	link := regexp.MustCompile(`\]\(([^)#\s]*)#([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	text := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text[f] = string(b)
		anchors[f] = map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(string(b), -1) {
			h := drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
			anchors[f][strings.ReplaceAll(h, " ", "-")] = true
		}
	}
	for _, f := range files {
		for _, m := range link.FindAllStringSubmatch(text[f], -1) {
			target := f
			if m[1] != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(f), m[1]))
			}
			if a, ok := anchors[target]; ok && !a[m[2]] {
				t.Errorf("%s: link to %s#%s: no such heading", f, m[1], m[2])
			}
		}
	}
}
