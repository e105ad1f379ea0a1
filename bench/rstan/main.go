// Command rstan measures langevin against rstan side by side on
// posteriordb's posteriors (stan/testdata/posteriordb): for each posterior,
// rstan (run.R: the program compiled once and cached, 4 chains of 1000
// warm-up iterations and 1000 draws in turn on one core) and then langevin
// (its default sampler for a Stan program, NUTS with Stan's warm-up, the
// same 4 × (1000 + 1000) from the same uniform(−2, 2) initial points, in a
// process of its own with GOMAXPROCS=1), each line of results giving the CPU
// seconds of sampling (user + system, warm-up included, compilation and
// loading excluded) and the least bulk-ESS over the posterior's parameters
// (those of its reference summary), appended to stan/testdata/rstan.csv:
//
//	go run ./bench/rstan                       # every posterior (hours)
//	go run ./bench/rstan -run 'earnings|nes'   # the ones whose names match
//	go run ./bench/rstan NAME...               # these, in this order
//	go run ./bench/rstan -table                # the Markdown table of docs/stan.md
//
// Run it from the module's root. It needs Rscript with rstan 2.21,
// posterior and jsonlite (Debian: r-cran-rstan r-cran-posterior
// r-cran-jsonlite); compiled models are cached under -cache. -ref writes
// rstan's summary as the reference of a posterior the mirror has no
// reference draws for (10 chains, as posteriordb's).
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/stan"
)

const pdb = "stan/testdata/posteriordb"

type posterior struct{ Name, Model, Data string }

func main() {
	var (
		run     = flag.String("run", "", "measure the posteriors whose names match this `regexp` (default all)")
		out     = flag.String("out", "stan/testdata/rstan.csv", "append the results to `file`")
		cache   = flag.String("cache", filepath.Join(os.Getenv("HOME"), ".cache", "langevin-rstan"), "`dir` for compiled models, data and runs")
		table   = flag.Bool("table", false, "print -out's results as a Markdown table and exit")
		only    = flag.String("only", "", "run one side only: rstan or langevin")
		maxTime = flag.String("max-time", "", "stop langevin's run after this `duration` (Go syntax: 10m), keeping the draws so far (marked)")
		ref     = flag.Bool("ref", false, "write rstan's summary (10 chains) as NAME.ref.json of the posteriors without one, and measure nothing")
		oneName = flag.String("one", "", "(internal) measure langevin on the posterior `name` and print its line")
		progF   = flag.String("prog", "", "(internal, with -one) the program")
		dataF   = flag.String("data", "", "(internal, with -one) the data")
		refF    = flag.String("reffile", "", "(internal, with -one) the reference summary")
	)
	flag.Parse()
	if *oneName != "" {
		if err := one(*oneName, *progF, *dataF, *refF, *maxTime); err != nil {
			fatal(err)
		}
		return
	}
	if *table {
		if err := writeTable(os.Stdout, *out); err != nil {
			fatal(err)
		}
		return
	}
	var ps []posterior
	b, err := os.ReadFile(filepath.Join(pdb, "index.json"))
	if err != nil {
		fatal(err)
	}
	if err := json.Unmarshal(b, &ps); err != nil {
		fatal(err)
	}
	re := regexp.MustCompile(*run)
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		fatal(err)
	}
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fatal(err)
	}
	defer f.Close()
	if st, _ := f.Stat(); st.Size() == 0 {
		fmt.Fprintln(f, "sampler,posterior,cpu_s,min_ess_bulk,worst,other_s,match")
	}
	if flag.NArg() > 0 { // the posteriors named, in the order given
		byName := map[string]posterior{}
		for _, p := range ps {
			byName[p.Name] = p
		}
		ps = ps[:0]
		for _, n := range flag.Args() {
			p, ok := byName[n]
			if !ok {
				fatal(fmt.Errorf("%s: not a posterior of %s/index.json", n, pdb))
			}
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		if !re.MatchString(p.Name) || strings.Contains(p.Name, "lotka_volterra") || strings.Contains(p.Name, "one_comp") {
			continue // ODE models: refused by the front end
		}
		data, err := unzip(*cache, p.Data)
		if err != nil {
			fatal(err)
		}
		prog := filepath.Join(pdb, p.Model+".stan")
		refFile := filepath.Join(pdb, p.Name+".ref.json")
		if *ref {
			if _, err := os.Stat(refFile); err == nil {
				continue
			}
			line, err := rstan(p, prog, data, *cache, refFile, refFile, "10")
			if err != nil {
				fatal(err)
			}
			fmt.Fprintf(os.Stderr, "%s: wrote %s (%s)\n", p.Name, refFile, line)
			continue
		}
		if *only != "langevin" {
			line, err := rstan(p, prog, data, *cache, refFile)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: rstan: %v\n", p.Name, err)
			} else {
				fmt.Fprintln(f, line)
				fmt.Println(line)
			}
		}
		if *only != "rstan" {
			line, err := runLangevin(p, prog, data, refFile, *maxTime)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: langevin: %v\n", p.Name, err)
			} else {
				fmt.Fprintln(f, line)
				fmt.Println(line)
			}
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "rstan:", err)
	os.Exit(1)
}

// unzip writes the posterior's data as DIR/data/NAME.json once.
func unzip(dir, name string) (string, error) {
	dst := filepath.Join(dir, "data", name+".json")
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	z, err := zip.OpenReader(filepath.Join(pdb, name+".json.zip"))
	if err != nil {
		return "", err
	}
	defer z.Close()
	r, err := z.File[0].Open()
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	return dst, os.WriteFile(dst, b, 0o644)
}

// rstan runs run.R and returns its CSV line.
func rstan(p posterior, prog, data, cache, ref string, extra ...string) (string, error) {
	src, err := os.ReadFile(prog)
	if err != nil {
		return "", err
	}
	old := filepath.Join(cache, "src", filepath.Base(prog))
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(old, []byte(oldSyntax(string(src))), 0o644); err != nil {
		return "", err
	}
	args := append([]string{"bench/rstan/run.R", p.Name, old, data, filepath.Join(cache, "models"), ref}, extra...)
	c := exec.Command("Rscript", args...)
	mv, _ := filepath.Abs("bench/rstan/Makevars")
	c.Env = append(os.Environ(), "R_MAKEVARS_USER="+mv, "LANGEVIN_RSTAN_LIB="+filepath.Join(cache, "lib"))
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, lastLines(stderr.String(), 15))
	}
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "rstan,") {
			return l, nil
		}
	}
	return "", fmt.Errorf("no result line: %s", lastLines(stdout.String()+stderr.String(), 15))
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// runLangevin measures langevin on the posterior in a process of its own
// (this program with -one, GOMAXPROCS=1) and returns its CSV line.
func runLangevin(p posterior, prog, data, refFile, maxTime string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	c := exec.Command(self, "-one", p.Name, "-prog", prog, "-data", data, "-max-time", maxTime, "-reffile", refFile)
	c.Env = append(os.Environ(), "GOMAXPROCS=1")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, lastLines(stderr.String(), 10))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// one runs langevin's default sampler for a Stan program, NUTS with
// Stan's warm-up, as CmdStan runs (and TestPosteriordb): 4 chains of 1000
// warm-up iterations and 1000 draws from uniform(−2, 2) initial points,
// seed 1, and prints the CSV line: the CPU seconds of langevin.Run
// (warm-up included; parsing and loading excluded) and the least bulk-ESS
// over the reference's parameters; other_s is the whole process's CPU.
func one(name, progFile, dataFile, refFile, maxTime string) error {
	src, err := os.ReadFile(progFile)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(dataFile)
	if err != nil {
		return err
	}
	prog, err := stan.Parse(filepath.Base(progFile), string(src))
	if err != nil {
		return err
	}
	d, err := stan.ParseData(filepath.Base(dataFile), b)
	if err != nil {
		return err
	}
	m, err := stan.New(prog, d)
	if err != nil {
		return err
	}
	opts := langevin.Options{Chains: 4, Iters: 2000, BurnIn: 1000, Seed: 1, Init: langevin.InitUniform{}}
	ctx := context.Background()
	stopped := ""
	if maxTime != "" {
		dur, err := time.ParseDuration(maxTime)
		if err != nil {
			return err
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, dur)
		defer cancel()
	}
	cpu := cpuSeconds()
	tr, err := langevin.Run(ctx, m, sampler.NUTS{}, opts)
	used := cpuSeconds() - cpu
	if err != nil && (tr == nil || ctx.Err() == nil) {
		return err
	}
	if ctx.Err() != nil {
		stopped = fmt.Sprintf(" (stopped at %s: %d draws per chain)", maxTime, len(tr.Draws[0]))
	}
	names, err := refNames(refFile)
	if err != nil {
		return err
	}
	col := map[string]int{}
	for j, n := range tr.Names {
		col[n] = j
	}
	if names == nil { // no reference: every column but the sampler's coordinates
		for _, n := range tr.Names {
			if !strings.Contains(n, "__free") {
				names = append(names, n)
			}
		}
	}
	worst, least := "", math.Inf(1)
	for _, n := range names {
		j, ok := col[n]
		if !ok {
			return fmt.Errorf("%s: not in the draws", n)
		}
		if e := diag.ESSBulk(tr.Param(j)); e < least {
			worst, least = n, e
		}
	}
	fmt.Printf("langevin,%s,%.2f,%.1f,%s%s,%.1f,%s\n", name, used, least, worst, stopped, cpuSeconds(), match(tr, col, refFile))
	return nil
}

// match is TestPosteriordb's check of the draws against the reference
// summary: for every parameter |mean − ref mean| ≤ 0.1 ref sd + 3 MCSE and
// the sd within 10% of the reference's; "yes", "no (k checks fail)", or
// "no reference".
func match(tr *langevin.Trace, col map[string]int, refFile string) string {
	b, err := os.ReadFile(refFile)
	if err != nil {
		return "no reference"
	}
	var ref struct{ Summary map[string][2]float64 }
	if err := json.Unmarshal(b, &ref); err != nil {
		return "no reference"
	}
	bad := 0
	for n, rs := range ref.Summary {
		j, ok := col[n]
		if !ok {
			bad++
			continue
		}
		ch := tr.Param(j)
		var s, s2, k float64
		for _, c := range ch {
			for _, v := range c {
				s, s2, k = s+v, s2+v*v, k+1
			}
		}
		mean := s / k
		sd := math.Sqrt((s2 - k*mean*mean) / (k - 1))
		if math.Abs(mean-rs[0]) > 0.1*rs[1]+3*diag.MCSEMean(ch) {
			bad++
		}
		if r := sd / rs[1]; r < 0.9 || r > 1.1 {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Sprintf("no (%d checks fail)", bad)
	}
	return "yes"
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// refNames lists the parameters of the posterior's reference summary (nil
// when it has none).
func refNames(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r struct{ Summary map[string][2]float64 }
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	var names []string
	for n := range r.Summary {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}
