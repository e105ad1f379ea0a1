package data

import (
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed australian.dat
var australianDat []byte

// australian parses the embedded file once.
var australian = sync.OnceValue(func() *Dataset {
	d, err := ParseCSV(bytes.NewReader(australianDat), "australian", CSVOptions{Delimiter: ' ', NoHeader: true})
	if err != nil {
		panic("data: embedded australian.dat is corrupt: " + err.Error())
	}
	for j := range d.Names {
		d.Names[j] = "A" + strconv.Itoa(j+1)
	}
	d.Target = "class"
	return d
})

// Australian returns the Statlog (Australian Credit Approval) data set: 690
// credit card applications with 14 features named A1..A14 and the target
// "class", 1 for an approved application (307 rows) and 0 for a rejected one
// (383 rows). The attribute names and values were replaced by meaningless
// symbols by the donor to protect confidentiality; the six continuous and
// eight categorical features appear here in the numeric coding of the UCI
// file australian.dat (categorical features as integer codes). The features
// are not standardised; see FitScaler.
//
// Each call returns a new copy, which the caller may modify.
//
// Source: Quinlan, R. (1987). Statlog (Australian Credit Approval). UCI
// Machine Learning Repository. https://doi.org/10.24432/C59012. Licensed
// under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).
func Australian() *Dataset {
	d := australian()
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx)
}

// Lecture returns the lecture notes' conjugate-regression example,
// CorrelatedNormal(10000, 0.9, 42): 10,000 pairs (x, y) from a bivariate
// normal with unit variances and correlation 0.9, target "y". Regressing y on
// x gives slope ≈ 0.9 and residual variance ≈ 0.19, so with an intercept the
// posterior sd of each coefficient is about √(0.19/10⁴) ≈ 0.0044. Generated,
// not stored: each call returns a new copy, the same for every call.
func Lecture() *Dataset { return CorrelatedNormal(10000, 0.9, 42) }

// builtins maps the names accepted by Builtin to constructors.
var builtins = map[string]func() *Dataset{
	"australian": Australian,
	"lecture":    Lecture,
}

// Builtin returns a new copy of the embedded data set with the given name,
// compared without regard to case. See BuiltinNames for the names.
func Builtin(name string) (*Dataset, error) {
	if f, ok := builtins[strings.ToLower(name)]; ok {
		return f(), nil
	}
	return nil, fmt.Errorf("data: unknown built-in data set %q; known data sets are: %s",
		name, strings.Join(BuiltinNames(), ", "))
}

// BuiltinNames returns the names of the embedded data sets in sorted order.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
