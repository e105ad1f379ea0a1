package data

import (
	"strings"
	"testing"
)

func TestAustralian(t *testing.T) {
	d := Australian()
	if d.Len() != 690 || d.Dim() != 14 {
		t.Fatalf("dims %d×%d, want 690×14", d.Len(), d.Dim())
	}
	if d.Names[0] != "A1" || d.Names[13] != "A14" || d.Target != "class" || d.Source != "australian" {
		t.Errorf("names %q target %q source %q", d.Names, d.Target, d.Source)
	}
	ones := 0
	for _, y := range d.Y {
		switch y {
		case 1:
			ones++
		case 0:
		default:
			t.Fatalf("label %v", y)
		}
	}
	if ones != 307 {
		t.Errorf("%d approved, want 307", ones)
	}
	// First row of australian.dat: 1 22.08 11.46 2 4 4 1.585 0 0 0 1 2 100 1213 0
	want := []float64{1, 22.08, 11.46, 2, 4, 4, 1.585, 0, 0, 0, 1, 2, 100, 1213}
	for j, w := range want {
		if d.X.At(0, j) != w {
			t.Errorf("X[0][%d] = %v, want %v", j, d.X.At(0, j), w)
		}
	}
	if d.Y[0] != 0 {
		t.Errorf("Y[0] = %v", d.Y[0])
	}

	// Callers get independent copies.
	d.X.Set(0, 0, 99)
	d.Y[0] = 5
	d.Names[0] = "x"
	e := Australian()
	if e.X.At(0, 0) != 1 || e.Y[0] != 0 || e.Names[0] != "A1" {
		t.Error("Australian returned shared data")
	}
}

func TestBuiltin(t *testing.T) {
	if got := BuiltinNames(); len(got) != 2 || got[0] != "australian" || got[1] != "lecture" {
		t.Errorf("BuiltinNames() = %q", got)
	}
	for _, name := range []string{"australian", "Australian"} {
		d, err := Builtin(name)
		if err != nil || d.Len() != 690 {
			t.Errorf("Builtin(%q): %v", name, err)
		}
	}
	if d, err := Builtin("lecture"); err != nil || d.Len() != 10000 || d.Dim() != 1 || d.Target != "y" || d.Y[0] != CorrelatedNormal(10000, 0.9, 42).Y[0] {
		t.Errorf("Builtin(lecture): %v", err)
	}
	_, err := Builtin("iris")
	if err == nil || !strings.Contains(err.Error(), `"iris"`) || !strings.Contains(err.Error(), "australian") {
		t.Errorf("Builtin(iris): %v", err)
	}
}
