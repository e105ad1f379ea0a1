package runctl

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/langevin-go/langevin/internal/budget"
)

// LogEvery is the interval of the progress log line when stderr is not a
// terminal.
var LogEvery = 5 * time.Second

// Progress shows how far the chains are: a bar redrawn in place when stderr
// is a terminal, a log line every few seconds otherwise, nothing when quiet.
type Progress struct {
	w        io.Writer
	quiet    bool
	terminal bool
	total    int64
	// Until, when not empty, is the rule that stops the run before total
	// (--sampler auto's ESS target): the line counts iterations and says
	// so instead of a fraction of an upper bound it seldom reaches.
	Until string
	done  []atomic.Int64
	begin time.Time
	quit  chan struct{}
	wg    sync.WaitGroup
}

// NewProgress returns a progress line on w for chains chains of iters
// iterations each; quiet prints nothing.
func NewProgress(w io.Writer, quiet bool, chains, iters int) *Progress {
	p := &Progress{w: w, quiet: quiet, total: budget.SatMul(int64(chains), int64(max(iters, 1))), done: make([]atomic.Int64, chains)}
	tw := w
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		tw = u.Unwrap() // a writer that rewrites the text on its way
	}
	if f, ok := tw.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// Update is the langevin.Options.Progress callback.
func (p *Progress) Update(chain, done int) { p.done[chain].Store(int64(done)) }

func (p *Progress) sum() int64 {
	var n int64
	for i := range p.done {
		n += p.done[i].Load()
	}
	return n
}

// Start starts the clock and, on a terminal, the progress line.
func (p *Progress) Start() {
	p.begin = time.Now()
	if p.quiet {
		return
	}
	p.quit = make(chan struct{})
	every := LogEvery
	if p.terminal {
		every = 100 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.draw(false)
			}
		}
	}()
}

func (p *Progress) draw(final bool) {
	n := p.sum()
	frac := float64(n) / float64(p.total)
	el := time.Since(p.begin).Seconds()
	if p.Until != "" {
		if p.terminal {
			fmt.Fprintf(p.w, "\r%d iterations, %.1fs (%s)", n, el, p.Until)
			if final {
				fmt.Fprint(p.w, "\r\033[K")
			}
		} else if !final {
			fmt.Fprintf(p.w, "langevin: %d iterations, %.1f s (%s)\n", n, el, p.Until)
		}
		return
	}
	if p.terminal {
		const width = 30
		k := int(frac * width)
		fmt.Fprintf(p.w, "\r[%s%s] %3.0f%% %d/%d iterations %.1fs", strings.Repeat("=", k), strings.Repeat(" ", width-k), 100*frac, n, p.total, el)
		if final {
			fmt.Fprint(p.w, "\r\033[K")
		}
		return
	}
	if !final {
		fmt.Fprintf(p.w, "langevin: %3.0f%% (%d/%d iterations, %.1f s)\n", 100*frac, n, p.total, el)
	}
}

// Stop ends the progress line.
func (p *Progress) Stop() {
	if p.quiet {
		return
	}
	close(p.quit)
	p.wg.Wait()
	p.draw(true)
}
