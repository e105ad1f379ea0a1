package stan

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
)

// reference is a posteriordb reference posterior's summary: the mean and
// sd of its draws (10 chains of 1000), by CmdStan's names.
type reference struct {
	Chains, Draws int
	Summary       map[string][2]float64
}

// slow are the posteriors that take more than 10 s of CPU here (scalar
// loops, or long trajectories of badly scaled posteriors; docs/stan.md has
// the times): they run only with LANGEVIN_STAN_ALL=1.
var slow = map[string]bool{
	"kidiq-kidscore_interaction": true, "earnings-earn_height": true, "earnings-logearn_interaction": true,
	"arK-arK": true, "garch-garch11": true, "arma-arma11": true, "gp_pois_regr-gp_pois_regr": true,
	"nes1972-nes": true, "kilpisjarvi_mod-kilpisjarvi": true, "low_dim_gauss_mix-low_dim_gauss_mix": true,
	"hmm_example-hmm_example": true, "earnings-logearn_height": true, "earnings-log10earn_height": true,
	"earnings-logearn_height_male": true, "earnings-logearn_logheight_male": true, "earnings-logearn_interaction_z": true,
	"nes1976-nes": true, "nes1980-nes": true, "nes1984-nes": true, "nes1988-nes": true, "nes1992-nes": true,
	"nes1996-nes": true, "nes2000-nes": true, "bball_drive_event_0-hmm_drive_0": true, "bball_drive_event_1-hmm_drive_1": true,
	"diamonds-diamonds": true, "mcycle_gp-accel_gp": true,
}

var (
	tableFlag = flag.String("stan.table", "", "write TestPosteriordb's results as the Markdown table of docs/stan.md into `file`")
	onlyFlag  = flag.String("stan.only", "", "run TestPosteriordb on the posteriors whose names match this `regexp` only (slow ones included)")
)

// TestPosteriordb runs NUTS (4 chains, 1000 warm-up iterations and 1000
// draws, Stan's defaults) on posteriordb's posteriors with reference draws
// (testdata/posteriordb, copied by testdata/posteriordb.sh) and compares
// each parameter with the reference draws: |mean − ref mean| ≤ 0.1 ref sd +
// 3 MCSE, and the sd within 10% of the reference's. A posterior whose
// program the front end refuses (ODE solvers) must be refused with a
// message naming the construct. With -short only eight schools runs; the
// slow ones (over 10 s of CPU) run with LANGEVIN_STAN_ALL=1. -stan.table
// writes the results as docs/stan.md's table:
//
//	LANGEVIN_STAN_ALL=1 go test ./stan -run TestPosteriordb -timeout 4h -stan.table ../docs/stan-posteriordb.md
func TestPosteriordb(t *testing.T) {
	all := os.Getenv("LANGEVIN_STAN_ALL") == "1"
	var only *regexp.Regexp
	if *onlyFlag != "" {
		only = regexp.MustCompile(*onlyFlag)
	}
	var rows []string
	for _, p := range pdbIndex(t) {
		switch {
		case only != nil:
			if !only.MatchString(p.Name) {
				continue
			}
		case testing.Short() && p.Name != "eight_schools-eight_schools_noncentered":
			continue
		case slow[p.Name] && !all:
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			m, err := pdbLoad(t, p)
			if err != nil {
				if !strings.Contains(err.Error(), "not supported") {
					t.Fatal(err)
				}
				rows = append(rows, fmt.Sprintf("| %s | refused: %s | | | | |", p.Name, markdownEscape(err.Error())))
				return
			}
			ref, hasRef := pdbRef(t, p.Name)
			start, cpu := time.Now(), cpuSeconds()
			tr, err := langevin.Run(context.Background(), m, sampler.NUTS{}, langevin.Options{
				Chains: 4, Iters: 2000, BurnIn: 1000, Seed: 1, Init: langevin.InitUniform{},
			})
			used := cpuSeconds() - cpu
			if err != nil {
				t.Fatal(err)
			}
			if !hasRef {
				rows = append(rows, fmt.Sprintf("| %s | no reference draws | %d | | | %.1f |", p.Name, m.Dim(), used))
				return
			}
			col := map[string]int{}
			for j, n := range tr.Names {
				col[n] = j
			}
			worstMean, loSD, hiSD := 0.0, math.Inf(1), math.Inf(-1)
			bad := 0
			for name, rs := range ref.Summary {
				j, ok := col[name]
				if !ok {
					t.Errorf("%s: not in the draws", name)
					bad++
					continue
				}
				ch := tr.Param(j)
				var s, s2, n float64
				for _, c := range ch {
					for _, v := range c {
						s += v
						s2 += v * v
						n++
					}
				}
				mean := s / n
				sd := math.Sqrt((s2 - n*mean*mean) / (n - 1))
				mcse := diag.MCSEMean(ch)
				dm := math.Abs(mean - rs[0])
				if dm > 0.1*rs[1]+3*mcse {
					t.Errorf("%s: mean %.4g, reference %.4g (sd %.4g, MCSE %.3g)", name, mean, rs[0], rs[1], mcse)
					bad++
				}
				ratio := sd / rs[1]
				if ratio < 0.9 || ratio > 1.1 {
					t.Errorf("%s: sd %.4g, reference %.4g (ratio %.3f)", name, sd, rs[1], ratio)
					bad++
				}
				if rs[1] > 0 {
					worstMean = math.Max(worstMean, dm/rs[1])
				}
				loSD, hiSD = math.Min(loSD, ratio), math.Max(hiSD, ratio)
			}
			match := "yes"
			if bad > 0 {
				match = fmt.Sprintf("no (%d checks fail)", bad)
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %.3f | %.3f–%.3f | %.1f |", p.Name, match, len(ref.Summary), worstMean, loSD, hiSD, used))
			t.Logf("%s: max |Δmean|/ref sd %.3f, sd ratio %.3f–%.3f, %.1f s CPU (%.1f s)", p.Name, worstMean, loSD, hiSD, used, time.Since(start).Seconds())
		})
	}
	if *tableFlag != "" {
		out := "| posterior | match | parameters | max \\|Δmean\\| / ref sd | sd / ref sd | CPU s |\n|---|---|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
		if err := os.WriteFile(*tableFlag, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// markdownEscape makes s safe inside a Markdown table cell.
func markdownEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
