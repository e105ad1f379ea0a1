package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// regression matches the linear regressions of at least 1000 rows among
// the posteriors (earnings: 1192 rows, nes: 1043–1350 except 1980 and
// 2000, diamonds: 5000), whose median ratio the table reports apart.
var regression = regexp.MustCompile(`^(earnings-|nes(1972|1976|1984|1988|1992|1996)-|diamonds-)`)

type result struct {
	cpu, ess     float64
	worst, match string
}

// readResults reads the results file: the last line of each sampler and
// posterior.
func readResults(file string) (map[string]map[string]result, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1 // rstan's lines have no match column
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	out := map[string]map[string]result{}
	for i, r := range rows {
		if i == 0 {
			continue
		}
		if len(r) < 6 {
			return nil, fmt.Errorf("%s:%d: expected 6 or 7 columns, found %d", file, i+1, len(r))
		}
		match := ""
		if len(r) > 6 {
			match = r[6]
		}
		cpu, err1 := strconv.ParseFloat(r[2], 64)
		ess, err2 := strconv.ParseFloat(r[3], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: expected numbers in columns 3 and 4", file, i+1)
		}
		if out[r[1]] == nil {
			out[r[1]] = map[string]result{}
		}
		out[r[1]][r[0]] = result{cpu, ess, r[4], match}
	}
	return out, nil
}

// writeTable writes the side-by-side table: per posterior, each side's CPU
// seconds and least bulk-ESS, and the ratio of langevin's ESS per CPU
// second to rstan's; then the medians.
func writeTable(w io.Writer, file string) error {
	res, err := readResults(file)
	if err != nil {
		return err
	}
	var names []string
	for n := range res {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "| posterior | match | rstan CPU s | langevin CPU s | rstan min bulk-ESS | langevin min bulk-ESS | ESS/s ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var all, reg []float64
	for _, n := range names {
		r, okR := res[n]["rstan"]
		l, okL := res[n]["langevin"]
		cell := func(ok bool, x result) (string, string) {
			if !ok {
				return "", ""
			}
			return fmt.Sprintf("%.1f", x.cpu), fmt.Sprintf("%.0f", x.ess)
		}
		rc, re := cell(okR, r)
		lc, le := cell(okL, l)
		ratio := ""
		if okR && okL && r.ess > 0 && r.cpu > 0 && l.cpu > 0 {
			q := (l.ess / l.cpu) / (r.ess / r.cpu)
			ratio = fmt.Sprintf("%.2f", q)
			all = append(all, q)
			if regression.MatchString(n) {
				reg = append(reg, q)
			}
		}
		name := n
		if regression.MatchString(n) {
			name += " (regression)"
		}
		if i := strings.Index(l.worst, " ("); i >= 0 { // stopped by -max-time
			le += l.worst[i:]
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", name, l.match, rc, lc, re, le, ratio)
	}
	fmt.Fprintf(w, "\nMedian ESS/s ratio: %s over the posteriors measured (%d); %s over the linear regressions with N ≥ 1000 among them (%d).\n",
		median(all), len(all), median(reg), len(reg))
	return nil
}

// median formats the median of x ("–" when x is empty).
func median(x []float64) string {
	if len(x) == 0 {
		return "–"
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%.2f", m)
}
