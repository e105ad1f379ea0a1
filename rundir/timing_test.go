package rundir_test

import (
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/langevin-go/langevin/rundir"
	"github.com/langevin-go/langevin/stancsv"
)

// TestSamplingSeconds sums the chain files' "(Sampling)" lines, gzipped or
// not, and is NaN when a chain has none (an unfinished run).
func TestSamplingSeconds(t *testing.T) {
	chain := func(secs string) string {
		s := "lp__,x\n-1,0.5\n-2,0.25\n"
		if secs != "" {
			s += "#\n#  Elapsed Time: 0.125 seconds (Warm-up)\n#                " + secs + " seconds (Sampling)\n#                9 seconds (Total)\n#\n"
		}
		return s
	}
	write := func(dir, name, body string, gz bool) {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if gz {
			zw := gzip.NewWriter(f)
			zw.Write([]byte(body))
			zw.Close()
			return
		}
		f.WriteString(body)
	}
	for _, tc := range []struct {
		name string
		secs [2]string
		gz   bool
		want float64
	}{
		{"finished", [2]string{"0.5", "1.25"}, false, 1.75},
		{"gzip", [2]string{"2", "0.75"}, true, 2.75},
		{"unfinished", [2]string{"0.5", ""}, false, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for k, s := range tc.secs {
				name := rundir.ChainFile(k + 1)
				if tc.gz {
					name += ".gz"
				}
				write(dir, name, chain(s), tc.gz)
			}
			r, err := rundir.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if r.RecordsStatus() {
				t.Error("RecordsStatus of files without run_id: true")
			}
			got := r.SamplingSeconds()
			if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("SamplingSeconds = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRecordsStatus: a Writer's run records its status (and its sampling
// time).
func TestRecordsStatus(t *testing.T) {
	dir := t.TempDir()
	w, err := rundir.Create(dir, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cw, err := w.Chain(1, stancsv.Config{Model: "toy", Algorithm: "sgld"}, []string{"lp__"}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.Draw(false, 1, []float64{0.5}, []float64{-1}); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	r, err := rundir.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.RecordsStatus() || !r.Finished() {
		t.Errorf("RecordsStatus %v, Finished %v; want true, true", r.RecordsStatus(), r.Finished())
	}
	if s := r.SamplingSeconds(); math.IsNaN(s) || s < 0 {
		t.Errorf("SamplingSeconds = %v", s)
	}
}
