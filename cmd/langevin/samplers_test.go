package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
)

// TestRunHelpCoversEveryFlag: run -h lists every sampler under its family
// and every flag in exactly one group.
func TestRunHelpCoversEveryFlag(t *testing.T) {
	code, out, _ := runMain("run", "-h")
	if code != 0 {
		t.Fatalf("run -h: exit %d", code)
	}
	for _, f := range fit.Families {
		if !strings.Contains(out, "  "+f+":\n") {
			t.Errorf("run -h lacks the family %q", f)
		}
	}
	for _, n := range fit.SamplerNames() {
		if !strings.Contains(out, "    "+n+" ") {
			t.Errorf("run -h lacks the sampler %q", n)
		}
	}
	var c fit.Config
	fs := newRunFlagSet(&c)
	grouped := map[string]int{}
	for _, g := range commonGroups {
		for _, n := range strings.Fields(g.flags) {
			grouped[n]++
		}
	}
	for _, g := range fit.FlagGroups {
		if len(fit.Readers(g.Name)) == 0 {
			t.Errorf("flag group %s: no sampler reads it", g.Name)
		}
	}
	for name := range grouped {
		if fs.Lookup(name) == nil {
			t.Errorf("group lists --%s, which is not a flag", name)
		}
		if grouped[name] > 1 {
			t.Errorf("--%s is in %d groups", name, grouped[name])
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out, "  -"+f.Name+" ") && !strings.Contains(out, "  -"+f.Name+"\n") {
			t.Errorf("run -h does not show --%s", f.Name)
		}
	})
}
