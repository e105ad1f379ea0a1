package rundir

import (
	"bufio"
	"compress/gzip"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// SamplingSeconds is the run's sampling time in seconds: the sum over its
// chain files of the closing "Elapsed Time: ... seconds (Sampling)" line
// that Writer.Close writes (CmdStan's timing block). It is NaN when a chain
// file has no such line, as for an unfinished run, or cannot be read.
func (r *Run) SamplingSeconds() float64 {
	var total float64
	for _, ch := range r.Chains {
		s, ok := fileSamplingSeconds(ch.Path)
		if !ok {
			return math.NaN()
		}
		total += s
	}
	return total
}

// fileSamplingSeconds reads the "(Sampling)" line of one chain file,
// gzipped when its name ends in .gz.
func fileSamplingSeconds(path string) (float64, bool) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer fh.Close()
	var rd io.Reader = fh
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(fh)
		if err != nil {
			return 0, false
		}
		rd = gz
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") || !strings.Contains(line, "seconds (Sampling)") {
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(line, "#"))
		for i, fl := range fields {
			if fl == "seconds" && i > 0 {
				if v, err := strconv.ParseFloat(fields[i-1], 64); err == nil {
					return v, true
				}
			}
		}
	}
	return 0, false
}
