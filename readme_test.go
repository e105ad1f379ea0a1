package langevin_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADME keeps the README short and its library example the code that
// fit.ExampleRun (the default job as a library call) compiles, runs and
// checks, with the output it checks.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, want at most 300 (move material into docs/)", n)
	}
	src, err := os.ReadFile("fit/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "func ExampleRun() {\n")
	j := strings.Index(s, "\t// Output:")
	if i < 0 || j < i {
		t.Fatal("fit/example_test.go: no ExampleRun with an Output comment")
	}
	var body strings.Builder
	for _, l := range strings.SplitAfter(s[i+len("func ExampleRun() {\n"):j], "\n") {
		body.WriteString(strings.TrimPrefix(l, "\t"))
	}
	r := string(readme)
	k := strings.Index(r, "## The library")
	if k < 0 {
		t.Fatal("README.md: no section \"## The library\"")
	}
	block := r[k:]
	a := strings.Index(block, "```go\n")
	b := strings.Index(block[a+6:], "```\n")
	if a < 0 || b < 0 {
		t.Fatal("README.md: no Go code block in \"The library\"")
	}
	if got := block[a+6 : a+6+b]; got != body.String() {
		t.Errorf("README.md's library example differs from fit.ExampleRun's body:\n--- README\n%s--- ExampleRun\n%s", got, body.String())
	}
	var out strings.Builder
	for _, l := range strings.Split(s[j:], "\n")[1:] {
		if !strings.HasPrefix(l, "\t// ") {
			break
		}
		out.WriteString(strings.TrimPrefix(l, "\t// ") + "\n")
	}
	if !strings.Contains(block, "It prints\n\n```\n"+out.String()+"```\n") {
		t.Errorf("README.md's library example does not show fit.ExampleRun's output:\n%s", out.String())
	}
}
