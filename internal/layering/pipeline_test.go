package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runCallers are the only functions of fit and cmd/langevin that call
// langevin.Run: fit.Run's pipeline (runProblem) and the plan's pilot run
// (NewPlan's check of an SG-MCMC plan), both on fit.Run's path. The command
// drives no job of its own: it calls fit.Run.
var runCallers = []string{"fit.runProblem", "fit.pilot"}

// TestOnePipeline parses the non-test files of fit and cmd/langevin and
// fails on a call of langevin.Run outside runCallers: a second pipeline.
func TestOnePipeline(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	for _, dir := range []string{"fit", "cmd/langevin"} {
		files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			local := "" // the name the file gives the root package
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == module {
					local = "langevin"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "Run" {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
						name := filepath.Base(dir) + "." + fn.Name.Name
						found = append(found, name)
						if !slices.Contains(runCallers, name) {
							t.Errorf("%s: %s calls langevin.Run: only fit.Run's pipeline may (%v); call fit.Run", fset.Position(call.Pos()), name, runCallers)
						}
					}
					return true
				})
			}
		}
	}
	if !slices.Contains(found, "fit.runProblem") {
		t.Errorf("no call of langevin.Run in fit.runProblem (found %v): the test no longer sees the pipeline", found)
	}
}
