package runctl

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Phases times the phases of a job (load, MAP and setup, sampling,
// prediction, KSD), reports each on stderr as it ends (unless quiet) and
// prints the time line of the whole job.
type Phases struct {
	w       io.Writer
	quiet   bool
	begin   time.Time
	last    time.Time
	cpu0    float64 // CPU seconds at the start and at the end of the last phase
	cpuLast float64
	names   []string
	secs    []float64
	cpuSecs []float64
}

// NewPhases starts the time line.
func NewPhases(w io.Writer, quiet bool) *Phases {
	now := time.Now()
	c := CPUSeconds()
	return &Phases{w: w, quiet: quiet, begin: now, last: now, cpu0: c, cpuLast: c}
}

// Done ends the current phase.
func (p *Phases) Done(name, note string) {
	now := time.Now()
	d := now.Sub(p.last).Seconds()
	p.last = now
	c := CPUSeconds()
	p.cpuSecs = append(p.cpuSecs, c-p.cpuLast)
	p.cpuLast = c
	p.names = append(p.names, name)
	p.secs = append(p.secs, d)
	if !p.quiet {
		if note != "" {
			note = " (" + note + ")"
		}
		fmt.Fprintf(p.w, "%s: done in %.2f s%s\n", name, d, note)
	}
}

// Print writes "time: T s in all: load a, …".
func (p *Phases) Print(w io.Writer) {
	var parts []string
	for i, n := range p.names {
		parts = append(parts, fmt.Sprintf("%s %.2f", n, p.secs[i]))
	}
	fmt.Fprintf(w, "time:     %.2f s for the whole job: %s\n", time.Since(p.begin).Seconds(), strings.Join(parts, ", "))
	if cpu := CPUSeconds() - p.cpu0; !math.IsNaN(cpu) {
		parts = parts[:0]
		for i, n := range p.names {
			parts = append(parts, fmt.Sprintf("%s %.2f", n, p.cpuSecs[i]))
		}
		fmt.Fprintf(w, "cpu:      %.2f s of CPU (user + system, all threads): %s\n", cpu, strings.Join(parts, ", "))
	}
}
