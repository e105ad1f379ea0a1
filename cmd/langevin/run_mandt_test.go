package main

import (
	"strings"
	"testing"
)

func TestRunMandtSamplers(t *testing.T) {
	for _, s := range mandtSamplers {
		args := []string{"run", "--sampler", s, "--iters", "400", "--burnin", "100", "--thin", "1", "--chains", "2", "--quiet"}
		if s == "iasg" {
			args = append(args, "--window", "20")
		}
		code, out, errOut := runMain(args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", s, code, errOut)
			continue
		}
		if !strings.Contains(out, "beta.14") || strings.Contains(out, "optimiser:") {
			t.Errorf("%s: unexpected output:\n%s", s, out)
		}
	}
}

func TestRunMandtBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sampler", "csgd", "--batch", "1"}, "--batch 1"},
		{[]string{"--sampler", "sgfs", "--hmax", "1"}, "--hmax"},
		{[]string{"--sampler", "sgfs", "--eps", "-1"}, "--eps -1"},
		{[]string{"--sampler", "csgd-momentum", "--momentum", "0"}, "--momentum 0"},
		{[]string{"--sampler", "iasg", "--window", "-1"}, "--window -1"},
		{[]string{"--sampler", "csgd", "--noise-est-batches", "-3"}, "--noise-est-batches -3"},
		{[]string{"--sampler", "csgd", "--batch", "100000"}, "--batch 100000"},
		{[]string{"--sampler", "csgdx"}, "--sampler"},
	} {
		code, _, errOut := runMain(append([]string{"run", "--quiet"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}
