package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/langevin-go/langevin"
)

// Combine joins the runs of chains of one analysis that ran in separate
// processes or machines (langevin run --chain-id K --out DIR_K), each read by
// Read, into one run whose chains are in chain order. It refuses a mix: the
// runs must have the same settings (the configuration comments of their
// chain files, which hold the seed, the sampler's settings, the data and the
// number of chains), the same model.json and scaler.json, the same columns,
// and chain numbers that neither repeat nor leave a gap; the error names the
// directories and the first setting that differs. The combined Run's Dir
// lists the directories joined by ", ".
func Combine(runs ...*Run) (*Run, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("rundir: combine: no runs")
	}
	first := runs[0]
	base := settingsMap(first.Settings)
	traces := make([]*langevin.Trace, len(runs))
	var dirs []string
	for i, r := range runs {
		dirs = append(dirs, r.Dir)
		traces[i] = r.Trace
		if i == 0 {
			continue
		}
		// num_samples counts the chain's kept draws (ChainWriter.Keep,
		// fewer for a chain stopped by a divergence), an outcome; the
		// planned length is in run_id, a hash of the settings as planned.
		if err := langevin.CheckSameRun(base, settingsMap(r.Settings), "num_samples"); err != nil {
			return nil, fmt.Errorf("%s and %s are not chains of one analysis: %v", first.Dir, r.Dir, err)
		}
		if a, b := first.Config["run_id"], r.Config["run_id"]; a != b {
			return nil, fmt.Errorf("%s and %s are not chains of one analysis: run_id %s and %s (the settings as planned differ)", first.Dir, r.Dir, a, b)
		}
		if !jsonEqual(first.Spec, r.Spec) {
			return nil, fmt.Errorf("%s and %s are not chains of one analysis: %s differs", first.Dir, r.Dir, SpecFile)
		}
		if !scalerEqual(first, r) {
			return nil, fmt.Errorf("%s and %s are not chains of one analysis: %s differs", first.Dir, r.Dir, ScalerFile)
		}
	}
	tr, err := langevin.CombineTraces(traces...)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.Join(dirs, ", "), err)
	}
	// Chains in the order of the combined trace.
	order := slices.Clone(runs)
	slices.SortStableFunc(order, func(a, b *Run) int { return a.Trace.FirstChain - b.Trace.FirstChain })
	out := &Run{Dir: strings.Join(dirs, ", "), Trace: tr, Settings: first.Settings, Config: first.Config, Spec: first.Spec, Scaler: first.Scaler}
	for _, r := range order {
		out.Chains = append(out.Chains, r.Chains...)
	}
	return out, nil
}

func settingsMap(kv [][2]string) map[string]string {
	m := make(map[string]string, len(kv))
	for _, p := range kv {
		m[p[0]] = p[1]
	}
	return m
}

// jsonEqual compares two JSON documents by their compact form.
func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func scalerEqual(a, b *Run) bool {
	if a.Scaler == nil || b.Scaler == nil {
		return a.Scaler == nil && b.Scaler == nil
	}
	return slices.Equal(a.Scaler.Mean, b.Scaler.Mean) && slices.Equal(a.Scaler.Scale, b.Scaler.Scale) &&
		a.Scaler.TargetMean == b.Scaler.TargetMean && a.Scaler.TargetScale == b.Scaler.TargetScale
}
