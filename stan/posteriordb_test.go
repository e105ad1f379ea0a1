package stan

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
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

// TestPosteriordb runs NUTS (4 chains, 1000 warm-up iterations and 1000
// draws, Stan's defaults) on posteriordb posteriors and compares each
// parameter with the reference draws: |mean − ref mean| ≤ 0.1 ref sd +
// 3 MCSE, and the sd within 10% of the reference's. With -short only eight
// schools runs.
func TestPosteriordb(t *testing.T) {
	for k, p := range posteriors {
		if testing.Short() && k > 0 {
			break
		}
		t.Run(p.name, func(t *testing.T) {
			m := load(t, p.model, p.data)
			var ref reference
			b, err := os.ReadFile(filepath.Join("testdata", p.name+".ref.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &ref); err != nil {
				t.Fatal(err)
			}
			start, cpu := time.Now(), cpuSeconds()
			tr, err := langevin.Run(context.Background(), m, sampler.NUTS{}, langevin.Options{
				Chains: 4, Iters: 2000, BurnIn: 1000, Seed: 1, Init: langevin.InitUniform{},
			})
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for j, n := range tr.Names {
				col[n] = j
			}
			worstMean, loSD, hiSD := 0.0, math.Inf(1), math.Inf(-1)
			for name, rs := range ref.Summary {
				j, ok := col[name]
				if !ok {
					t.Errorf("%s: not in the draws", name)
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
				}
				ratio := sd / rs[1]
				if ratio < 0.9 || ratio > 1.1 {
					t.Errorf("%s: sd %.4g, reference %.4g (ratio %.3f)", name, sd, rs[1], ratio)
				}
				worstMean = math.Max(worstMean, dm/rs[1])
				loSD, hiSD = math.Min(loSD, ratio), math.Max(hiSD, ratio)
			}
			t.Logf("%s: max |Δmean|/ref sd %.3f, sd ratio %.3f–%.3f, %.1f s CPU (%.1f s)", p.name, worstMean, loSD, hiSD, cpuSeconds()-cpu, time.Since(start).Seconds())
		})
	}
}
