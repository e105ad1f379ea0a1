package layering

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/langevin-go/langevin"

// layers gives each package of the module its layer (paths relative to the
// module; "" is the root package langevin). A package imports only packages
// of lower layers: the arrows point down (DESIGN.md). A new package needs a
// line here.
var layers = map[string]int{
	// the vocabulary and the leaves
	"internal/linalg": -1, // below the root: the one Cholesky
	"internal/budget": -1, // the memory budget, below the run control
	"":                0, "density": 0, "transform": 0, "schedule": 0, "diag": 0, "data": 0, "stancsv": 0,
	"internal/lyap": 0, "internal/runctl": 0, "internal/layering": 0, "loo": 0,
	"ad": 1,
	// models, kernels, predictions, figures
	"model": 2, "formula": 2, "stan": 2, "sampler": 2, "predict": 2, "plot": 2,
	// approximations and the run directory
	"approx": 3, "rundir": 3, "internal/testmodel": 3,
	"report": 4,
	// the job
	"fit":                 5,
	"internal/experiment": 6,
	// programs
	"cmd/langevin": 7, "bench/rightdefault": 7, "bench/hostile": 7, "bench/scaling": 7, "bench/stanrows": 7, "bench/rstan": 7,
}

// only lists packages whose module imports are restricted further than by
// their layer (DESIGN.md's layout).
var only = map[string][]string{
	"":        {"internal/linalg"},                 // the root package knows no concrete model or sampler
	"sampler": {"", "schedule", "internal/linalg"}, // kernels only: no diag, no model, no approx
	"ad":      {"density", "transform"},
	"predict": {"diag"},
}

// never lists imports a package must not make, module packages or not,
// though its layer would allow them: fit is the job in values, so it draws no
// figure (DESIGN.md's layout; the rest of the list follows the one-pipeline
// redesign).
var never = map[string][]string{
	"fit": {module + "/plot", "gonum.org/v1/plot", module + "/internal/runctl", "flag", module + "/rundir", module + "/stancsv"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// TestImportsPointDown walks go list over the module and fails on any
// import that runs sideways or back up, or on a package without a layer.
func TestImportsPointDown(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// Read every Go file of the module, so that go test's cache (which does
	// not see what go list reads) is invalidated when an import changes.
	filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			os.ReadFile(path)
		}
		return nil
	})
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, msg := range check(p) {
			t.Error(msg)
		}
	}
	if n < 20 {
		t.Errorf("go list found %d packages, expected the whole module", n)
	}
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// check returns the import violations of p.
func check(p pkg) []string {
	name, _ := rel(p.ImportPath)
	show := func(s string) string {
		if s == "" {
			return "langevin"
		}
		return s
	}
	lp, ok := layers[name]
	if !ok {
		return []string{"package " + show(name) + " has no layer in layering_test.go: give it one (what it may import)"}
	}
	var bad []string
	for _, imp := range p.Imports {
		for _, no := range never[name] {
			if imp == no || strings.HasPrefix(imp, no+"/") {
				bad = append(bad, show(name)+" imports "+imp+", which it must never import")
			}
		}
		q, own := rel(imp)
		if !own {
			continue
		}
		lq, ok := layers[q]
		switch {
		case !ok:
			bad = append(bad, show(name)+" imports "+show(q)+", which has no layer")
		case lq >= lp:
			bad = append(bad, show(name)+" (layer "+itoa(lp)+") imports "+show(q)+" (layer "+itoa(lq)+"): an import that does not point down")
		}
		if allowed, restricted := only[name]; restricted && !slices.Contains(allowed, q) {
			bad = append(bad, show(name)+" imports "+show(q)+": it may import only "+strings.Join(allowed, ", ")+" of the module")
		}
	}
	return bad
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestCheckCatches shows the check failing on the imports it exists to
// refuse: sampler importing diag, and model importing fit.
func TestCheckCatches(t *testing.T) {
	for _, p := range []pkg{
		{module + "/sampler", []string{module, module + "/diag"}},
		{module + "/model", []string{module + "/fit"}},
		{module + "/approx", []string{module + "/approx/x"}},
		{module + "/fit", []string{module + "/plot"}},
		{module + "/fit", []string{module + "/rundir"}},
		{module + "/fit", []string{module + "/stancsv"}},
		{module + "/fit", []string{"flag"}},
	} {
		if len(check(p)) == 0 {
			t.Errorf("%s importing %v: no violation found", p.ImportPath, p.Imports)
		}
	}
	if bad := check(pkg{module + "/fit", []string{module + "/sampler", module + "/diag", "fmt"}}); len(bad) != 0 {
		t.Errorf("fit's imports refused: %v", bad)
	}
}

// TestFitLinksNoFigures checks that a program calling fit.Run links no
// plotting or font package, directly or through another package.
func TestFitLinksNoFigures(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", module+"/fit").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || strings.HasPrefix(dep, module+"/plot") || strings.Contains(dep, "font") {
			t.Errorf("fit depends on %s", dep)
		}
	}
}
