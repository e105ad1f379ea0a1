package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocCommentsStartWithName parses every non-test Go file of the module's
// library packages (package main is exempt) and fails on an exported
// function or type without a doc comment, and on an exported function,
// method, type, variable or constant whose doc comment does not start with
// its name (as gofmt's doc conventions and gonum's code do: "Name does …",
// or "A Name is …"; a variable or constant declared with others in one
// spec, or with no comment of its own, is not checked). A comment that
// names something else is the trace of a rename. It also fails when it
// finds fewer than 20 library packages (a walk that saw nothing).
func TestDocCommentsStartWithName(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	pkgs := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "../.." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		pkgs[filepath.Dir(path)] = true
		check := func(name string, doc *ast.CommentGroup, pos token.Pos, required bool) {
			if !ast.IsExported(name) {
				return
			}
			if doc == nil {
				if required {
					bad = append(bad, fset.Position(pos).String()+": "+name+" has no doc comment")
				}
				return
			}
			if !startsWithName(doc.Text(), name) {
				first, _, _ := strings.Cut(doc.Text(), "\n")
				bad = append(bad, fset.Position(pos).String()+": the doc comment of "+name+" starts "+`"`+first+`"`)
			}
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv != nil && !ast.IsExported(receiverName(decl.Recv.List[0].Type)) {
					continue
				}
				check(decl.Name.Name, decl.Doc, decl.Pos(), decl.Recv == nil)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch sp := spec.(type) {
					case *ast.TypeSpec:
						doc := sp.Doc
						if doc == nil && len(decl.Specs) == 1 {
							doc = decl.Doc
						}
						check(sp.Name.Name, doc, sp.Pos(), true)
					case *ast.ValueSpec:
						doc := sp.Doc
						if doc == nil && len(decl.Specs) == 1 {
							doc = decl.Doc
						}
						if len(sp.Names) == 1 {
							check(sp.Names[0].Name, doc, sp.Pos(), false)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Errorf("found %d library packages, expected the whole module", len(pkgs))
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// startsWithName reports whether the doc text starts with name as a word,
// possibly after an article.
func startsWithName(text, name string) bool {
	for _, prefix := range []string{"", "A ", "An ", "The ", "Deprecated: "} {
		rest, ok := strings.CutPrefix(text, prefix+name)
		if ok && (rest == "" || strings.ContainsAny(rest[:1], " ,.:;'\n")) {
			return true
		}
	}
	return false
}

// receiverName is the name of a method's receiver type.
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
