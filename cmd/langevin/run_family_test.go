package main

import (
	"strings"
	"testing"
)

func TestRunFamilySamplers(t *testing.T) {
	for _, args := range [][]string{
		{"--sampler", "psgld"},
		{"--sampler", "sghmc", "--friction", "0.3"},
		{"--sampler", "csgld", "--cycles", "4", "--explore", "0.25"},
		{"--sampler", "csghmc", "--cycles", "4"},
		{"--sampler", "sghmc", "--thermostat"},
		{"--sampler", "baoab", "--friction", "0.5"},
		{"--sampler", "sgld", "--cv", "--temperature-start", "10"},
		{"--sampler", "psgld", "--cv", "--alpha", "0.9", "--lambda", "1e-4"},
		{"--model", "gauss2", "--sampler", "sghmc", "--grad-noise", "1"},
		{"--model", "mixture25", "--sampler", "csgld", "--cycles", "3", "--step", "0.07", "--init", "zero"},
	} {
		code, out, errOut := runMain(append(append([]string{"run"}, fast...), args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
			continue
		}
		if !strings.Contains(out, "ess_bulk") || strings.Contains(out, "optimiser:") {
			t.Errorf("%v: output\n%s", args, out)
		}
	}
	// cSGLD keeps only the sampling phase: 4 cycles of L = 750 over 3000
	// iterations, the first 375 of each exploring; after the burn-in of 1000
	// the sampling phases 1126–1500, 1876–2250 and 2626–3000 remain, 1125
	// iterations, of which thinning by 2 keeps 563.
	_, out, _ := runMain(append(append([]string{"run"}, fast...), "--sampler", "csgld", "--cycles", "4")...)
	if !strings.Contains(out, "4 chains × 563 kept") {
		t.Errorf("csgld kept draws:\n%s", out)
	}
}

// The steps line's first step is iteration 1's even when that iteration is
// not kept: with no burn-in, a cyclic schedule's first kept draw is the
// middle of a cycle, where η = η₀/2 (the line said "η from 0.005 (iteration
// 1)" for --step 0.01).
func TestRunStepsLineFirstIteration(t *testing.T) {
	code, out, errOut := runMain("run", "--sampler", "csghmc", "--step", "0.01", "--burnin", "0", "--iters", "2000", "--quiet")
	if want := "steps:    η from 0.01 (iteration 1) to "; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, %s; output lacks %q:\n%s", code, errOut, want, out)
	}
}

func TestRunFamilyFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sampler", "sghmc", "--friction", "0"}, "--friction"},
		{[]string{"--sampler", "psgld", "--alpha", "2"}, "--alpha"},
		{[]string{"--sampler", "psgld", "--lambda", "-1"}, "--lambda"},
		{[]string{"--sampler", "csgld", "--explore", "1"}, "--explore"},
		{[]string{"--explore", "0.5"}, "--explore"},
		{[]string{"--temperature-start", "-1"}, "--temperature-start"},
		{[]string{"--temperature-start", "2", "--burnin", "0"}, "--temperature-start"},
		{[]string{"--cv", "--batch", "0"}, "--cv"},
		{[]string{"--grad-noise", "1"}, "--grad-noise"},
		{[]string{"--model", "mixture25", "--batch", "5"}, "--batch"},
		{[]string{"--model", "gauss2", "--rho", "1"}, "--rho"},
		{[]string{"--sampler", "csghmc", "--schedule", "poly"}, "--schedule"},
		{[]string{"--sampler", "hmc"}, "--sampler"}, // nuts is a sampler since issue 3
		{[]string{"--sampler", "sgld", "--thermostat"}, "--thermostat"},
		{[]string{"--model", "gauss3"}, "--model"},
	} {
		code, _, errOut := runMain(append(append([]string{"run"}, fast...), tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", tc.args, code, errOut, tc.want)
		}
	}
}
