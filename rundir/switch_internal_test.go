package rundir

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin/stancsv"
)

// The end-of-run rewrite of the chain files to the kept draws (Keep) is
// all or nothing (issue 24, row 7): a process killed at any moment of it
// leaves a directory that reads as the draws as written, in every chain,
// or as the kept draws, in every chain — never a mix of thinnings, never an
// empty chain that was sampled.

const (
	switchChains = 4
	switchRows   = 3000 // per chain, iterations 1, 2, …
	switchThin   = 4    // Keep: every 4th
	switchCols   = 40
)

// slowFile is a chain file whose writes take time, so that a kill lands
// inside the rewrite.
type slowFile struct{ *os.File }

func (f slowFile) Write(p []byte) (int, error) {
	time.Sleep(time.Duration(len(p)/4096+1) * 200 * time.Microsecond)
	return f.File.Write(p)
}

// TestHelperSwitchWriter is the process TestKillDuringRewrite kills: it
// writes switchChains chains of switchRows rows (the first value of a row
// is its iteration), asks each to keep every switchThin-th, prints
// "closing" and closes the Writer, slowly.
func TestHelperSwitchWriter(t *testing.T) {
	dir := os.Getenv("RUNDIR_HELPER_SWITCH")
	if dir == "" {
		t.Skip("run by TestKillDuringRewrite")
	}
	w, err := Create(dir, Options{FlushEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, switchCols)
	for j := range names {
		names[j] = "x." + strconv.Itoa(j+1)
	}
	var keep []int
	for it := 1; it <= switchRows; it += switchThin {
		keep = append(keep, it)
	}
	row := make([]float64, switchCols)
	stats := []float64{0}
	for k := 1; k <= switchChains; k++ {
		cw, err := w.Chain(k, stancsv.Config{Model: "m", NumSamples: switchRows}, []string{"lp__"}, names)
		if err != nil {
			t.Fatal(err)
		}
		for it := 1; it <= switchRows; it++ {
			row[0] = float64(it)
			for j := 1; j < switchCols; j++ {
				row[j] = float64(k) + float64(j)/7
			}
			if err := cw.Draw(false, it, row, stats); err != nil {
				t.Fatal(err)
			}
		}
		cw.Keep(keep, switchThin)
	}
	old := createFile
	createFile = func(path string) (file, error) {
		f, err := old(path)
		if err != nil {
			return nil, err
		}
		return slowFile{f.(*os.File)}, nil
	}
	rename = func(a, b string) error {
		time.Sleep(20 * time.Millisecond)
		return os.Rename(a, b)
	}
	os.Stdout.WriteString("closing\n")
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("closed\n")
}

// checkSwitched reads dir and checks that it holds, in every chain, all
// rows as written (thin 1) or all the kept rows (thin switchThin). It
// returns the thinning read.
func checkSwitched(t *testing.T, dir, what string) int {
	t.Helper()
	r, err := Read(dir)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	thin := r.Trace.Thin
	if thin != 1 && thin != switchThin {
		t.Fatalf("%s: thin %d", what, thin)
	}
	if r.Trace.NumChains() != switchChains {
		t.Fatalf("%s: %d chains", what, r.Trace.NumChains())
	}
	for c, draws := range r.Trace.Draws {
		var got []int
		for _, d := range draws {
			got = append(got, int(d[0]))
		}
		var want []int
		for it := 1; it <= switchRows; it += thin {
			want = append(want, it)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: chain %d (thin %d) holds %d rows, iterations %v…, want %d", what, c+1, thin, len(got), got[:min(5, len(got))], len(want))
		}
		if !r.Chains[c].Finished() {
			t.Errorf("%s: chain %d status %q", what, c+1, r.Chains[c].Status)
		}
	}
	return thin
}

// TestKillDuringRewrite kills the writer with SIGKILL at 20 random moments
// of its Close (the chain files closed, their copies of the kept draws
// written, the switch): every directory reads as wholly before or wholly
// after the rewrite.
func TestKillDuringRewrite(t *testing.T) {
	if os.Getenv("RUNDIR_HELPER_SWITCH") != "" {
		t.Skip("helper")
	}
	run := func(dir string, kill time.Duration) (closed bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSwitchWriter$")
		cmd.Env = append(os.Environ(), "RUNDIR_HELPER_SWITCH="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		br := bufio.NewReader(out)
		line, _ := br.ReadString('\n')
		if line != "closing\n" {
			cmd.Process.Kill()
			t.Fatalf("helper: %q", line)
		}
		if kill < 0 {
			rest, _ := br.ReadString('\n')
			return rest == "closed\n"
		}
		time.Sleep(kill)
		cmd.Process.Signal(syscall.SIGKILL)
		return false
	}
	// The whole Close, once, to time it.
	t0 := time.Now()
	full := filepath.Join(t.TempDir(), "full")
	if !run(full, -1) {
		t.Fatal("the helper did not close")
	}
	span := time.Since(t0)
	if thin := checkSwitched(t, full, "finished"); thin != switchThin {
		t.Fatalf("finished run: thin %d, want %d", thin, switchThin)
	}
	n := 20
	if testing.Short() {
		n = 6
	}
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[int]int{}
	marker := 0
	for i := range n {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(i))
		at := time.Duration(rng.Float64() * float64(span))
		run(dir, at)
		if _, err := os.Stat(filepath.Join(dir, SwitchFile)); err == nil {
			marker++
		}
		seen[checkSwitched(t, dir, "kill "+strconv.Itoa(i)+" at "+at.String())]++
	}
	t.Logf("Close takes %v; after %d kills: %d directories read as written (thin 1), %d as kept (thin %d); %d killed during the switch", span, n, seen[1], seen[switchThin], switchThin, marker)
}

// TestSwitchHalfDone: a directory left with the marker and some copies
// renamed, others not, reads as wholly switched; one with mixed thinnings
// and no marker (an older langevin killed while it rewrote) is refused
// with ErrMixed by Read.
func TestSwitchHalfDone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSwitchWriter$")
	cmd.Env = append(os.Environ(), "RUNDIR_HELPER_SWITCH="+dir)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "closed") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	// Rebuild the state of a kill after two of four renames: the old files
	// of chains 3 and 4 back, their copies beside them, the marker.
	half := filepath.Join(t.TempDir(), "half")
	if err := os.CopyFS(half, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ChainFile(1)))
	all := strings.Replace(string(b), "thin = 4", "thin = 1", 1) // a stand-in for the unthinned file
	for _, k := range []int{3, 4} {
		os.Rename(filepath.Join(half, ChainFile(k)), filepath.Join(half, ".tmp-"+ChainFile(k)))
		os.WriteFile(filepath.Join(half, ChainFile(k)), []byte(all), 0o644)
	}
	os.WriteFile(filepath.Join(half, SwitchFile), []byte("chain-1.csv\nchain-2.csv\nchain-3.csv\nchain-4.csv\n"), 0o644)
	if thin := checkSwitched(t, half, "half switched"); thin != switchThin {
		t.Errorf("half switched: thin %d, want %d", thin, switchThin)
	}
	// Without the marker the thinnings are mixed: refused.
	os.Remove(filepath.Join(half, SwitchFile))
	if _, err := Read(half); !errors.Is(err, ErrMixed) || !strings.Contains(err.Error(), "chain-3.csv: thin = 1 but") {
		t.Errorf("mixed thinnings: %v, want ErrMixed naming chain-3.csv", err)
	}
}
