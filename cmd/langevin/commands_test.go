package main

import (
	"os"
	"strings"
	"testing"
)

// The package doc and the usage text list every command of the table, and
// every command of the table runs (help COMMAND prints its flags).
func TestCommandTable(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src[:strings.Index(string(src), "package main")])
	for _, c := range commands {
		if !strings.Contains(doc, "//\tlangevin "+c.name()) {
			t.Errorf("the package doc does not list langevin %s", c.name())
		}
		if !strings.Contains(usage, "  langevin "+c.usageLine) {
			t.Errorf("the usage does not list langevin %s", c.usageLine)
		}
		if c.run == nil {
			continue
		}
		if code, out, errOut := runMain("help", c.name()); code != 0 || out == "" {
			t.Errorf("langevin help %s: exit %d, stdout %q, stderr %q", c.name(), code, out, errOut)
		}
	}
}
