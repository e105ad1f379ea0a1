package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/internal/budget"
)

// weather writes a table of 2,917 days' weather in 2023 with the date as
// text (336 different days) and, with commas, the temperature written with
// a decimal comma.
func weather(t *testing.T, commas bool) string {
	rng := rand.New(rand.NewPCG(37, 4))
	var b strings.Builder
	b.WriteString("date,temp,wind,rain\n")
	for range 2917 {
		day := rng.IntN(336)
		temp := fmt.Sprintf("%.1f", 15+5*rng.NormFloat64())
		if commas {
			temp = `"` + strings.Replace(temp, ".", ",", 1) + `"`
		}
		fmt.Fprintf(&b, "2023-%02d-%02d,%s,%.1f,%d\n", 1+day/28, 1+day%28, temp, 10+3*rng.NormFloat64(), rng.IntN(2))
	}
	path := filepath.Join(t.TempDir(), "weather.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHighCardinalityText: a date column (336 levels in 2,917 rows) and
// numbers with decimal commas became hundreds of dummies, then a memory
// error naming flags never given (--iters 10000000 --burnin 600660 --thin
// 1). Now each is refused at once with the column named, what it looks
// like, and the choices; forced with --categorical, a memory refusal names
// only the flags given.
func TestHighCardinalityText(t *testing.T) {
	path := weather(t, false)
	expectExit2(t, "a date column", []string{"run", "--data", path, "--target", "rain", "--quiet"},
		`column "date" holds dates (336 different in 2917 rows`, "--drop date", "--id date", "--categorical date")
	expectExit2(t, "decimal commas", []string{"run", "--data", weather(t, true), "--target", "rain", "--drop", "date", "--quiet"},
		`column "temp" holds numbers written with a decimal comma`, "--drop temp", "--categorical temp")

	budget.Hook = func() int64 { return 32 << 20 } // the data fit, 64 chains' draws do not
	defer func() { budget.Hook = nil }()
	errOut := expectExit2(t, "--categorical date, 32 MiB of memory", []string{"run", "--data", path, "--target", "rain", "--categorical", "date", "--chains", "64", "--quiet"},
		"--chains 64", "would take")
	for _, flag := range []string{"--iters", "--burnin", "--thin "} {
		if strings.Contains(strings.SplitN(errOut, ": the ", 2)[0], flag) {
			t.Errorf("the memory refusal names %s, which was not given: %s", flag, errOut)
		}
	}
}
