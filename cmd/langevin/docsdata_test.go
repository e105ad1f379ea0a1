package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFormulasFirstExample: the first command of docs/formulas.md runs on a
// file the repository holds (it named a sleep.csv that nothing provided):
// its --data exists and has every column its formula names. Run in full
// outside -short (about 6 s of CPU).
func TestFormulasFirstExample(t *testing.T) {
	b, err := os.ReadFile("../../docs/formulas.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sh\n(langevin run [^\n]*)\n").FindSubmatch(b)
	if m == nil {
		t.Fatal("no first example")
	}
	cmd := string(m[1])
	data := regexp.MustCompile(`--data (\S+)`).FindStringSubmatch(cmd)
	form := regexp.MustCompile(`--formula '([^']*)'`).FindStringSubmatch(cmd)
	if data == nil || form == nil {
		t.Fatalf("%q: no --data or --formula", cmd)
	}
	path := filepath.Join("../..", data[1])
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	header := strings.Split(strings.TrimSpace(strings.SplitN(string(head), "\n", 2)[0]), ",")
	for _, col := range regexp.MustCompile(`[A-Za-z_][A-Za-z_0-9.]*`).FindAllString(form[1], -1) {
		found := false
		for _, h := range header {
			found = found || h == col
		}
		if !found {
			t.Errorf("%q: column %q not in %s (%v)", cmd, col, data[1], header)
		}
	}
	if testing.Short() {
		return
	}
	args := strings.Fields(strings.ReplaceAll(cmd, "'"+form[1]+"'", "FORMULA"))[1:]
	for i, a := range args {
		switch a {
		case "FORMULA":
			args[i] = form[1]
		case data[1]:
			args[i] = path
		}
	}
	code, out, errOut := runMain(append(args, "--quiet", "--out", filepath.Join(t.TempDir(), "o"))...)
	if code != 0 || !strings.Contains(out, "sd_Subject__Days") {
		t.Errorf("exit %d: %s\n%s", code, errOut, out)
	}
}
