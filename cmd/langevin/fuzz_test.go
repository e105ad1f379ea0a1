package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/fit"
)

// FuzzParseRun: the flag parser of langevin run never panics, and every
// error it returns is an input error (exit code 2) of one line.
func FuzzParseRun(f *testing.F) {
	for _, s := range []string{
		"",
		"-h",
		"--iters 3000 --burnin 1000 --thin 2",
		"--sampler nuts --temperature 2",
		"--sampler sghmc --thermostat --friction 0.1",
		"--model mlp --hidden 10,5 --activation tanh --classes 3",
		"--model gauss2 --rho 0.99 --grad-noise 1",
		"--chains 100000",
		"--iters -1",
		"--thin 0",
		"--step nan",
		"--step 1e400",
		"--schedule cyclic --cycles 4 --explore 0.5",
		"--sampler csgld --schedule poly",
		"--data moons --n 100 --noise 0.2",
		"--data spirals --k 5",
		"--test-frac 0",
		"--test-frac 1",
		"--out /dev/null --overwrite",
		"--temperature-start 10 --burnin 0",
		"--hidden 1,,2",
		"--seed 18446744073709551615",
		"--sampler vi --burnin 0",
		"--warmup 10 --burnin 20 --sampler nuts",
		"run extra",
		"--=x",
		"---iters 3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseRun(strings.Fields(s), io.Discard)
		if err == nil {
			if c == nil {
				t.Fatal("nil configuration without an error")
			}
			return
		}
		if errors.Is(err, errHelp) {
			return
		}
		if !errors.As(err, new(fit.InputError)) {
			t.Fatalf("%q: error %T %v is not an input error", s, err, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("%q: error of several lines: %q", s, err)
		}
	})
}
