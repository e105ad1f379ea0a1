package experiment

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin/plot"
)

// Common holds the flags every new experiment takes.
type Common struct {
	Out  string // output directory (--out)
	Seed uint64 // seed of the chains (--seed)
	Full bool   // the paper's scale rather than the 2-minute default (--full)
}

// Flags is the flag set of an experiment that writes a page: the common flags
// and those the experiment adds to the embedded flag set before Parse.
type Flags struct {
	*flag.FlagSet
	Common
}

// NewFlags returns the flag set "experiment NAME" with --out (default
// out/NAME), --seed (default 1) and --full defined. fullHelp says what --full
// changes; an empty fullHelp leaves --full undefined.
func NewFlags(name, fullHelp string) *Flags {
	f := &Flags{FlagSet: flag.NewFlagSet("experiment "+name, flag.ContinueOnError)}
	f.StringVar(&f.Out, "out", filepath.Join("out", name), "write the figures (PNG and SVG) and index.md into `DIR`")
	f.Uint64Var(&f.Seed, "seed", 1, "seed of the chains (same seed, same draws)")
	if fullHelp != "" {
		f.BoolVar(&f.Full, "full", false, fullHelp)
	}
	return f
}

// Parse parses args as ParseFlags does: -h prints the flags to stdout and
// returns ErrHelp, a bad flag or an argument is a *UsageError.
func (f *Flags) Parse(args []string, stdout io.Writer) error {
	return ParseFlags(f.FlagSet, args, stdout)
}

// Page creates the output directory --out and returns an empty page titled
// title (NewPage).
func (f *Flags) Page(title string) (*Page, error) { return NewPage(f.Out, title) }

// ParsePage is Parse and then Page, the start of an experiment with no flag
// to check before its output directory is made.
func (f *Flags) ParsePage(args []string, stdout io.Writer, title string) (*Page, error) {
	if err := f.Parse(args, stdout); err != nil {
		return nil, err
	}
	return f.Page(title)
}

// Page collects an experiment's figures and text and writes them into its
// output directory: NAME.png and NAME.svg per figure, index.md for the page.
type Page struct {
	Dir   string
	Title string
	body  strings.Builder
}

// NewPage creates dir (a *UsageError naming --out if it cannot) and returns
// an empty page titled title.
func NewPage(dir, title string) (*Page, error) {
	if err := makeOut(dir); err != nil {
		return nil, err
	}
	return &Page{Dir: dir, Title: title}, nil
}

// makeOut creates the output directory dir: a *UsageError naming --out if
// dir is empty or cannot be made.
func makeOut(dir string) error {
	if dir == "" {
		return Usagef("--out: expected a directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Usagef("--out %s: %v", dir, err)
	}
	return nil
}

// Printf appends formatted markdown to the page.
func (pg *Page) Printf(format string, a ...any) { fmt.Fprintf(&pg.body, format, a...) }

// Figure writes p as name.png and name.svg at w×h and links the PNG from the
// page with the caption.
func (pg *Page) Figure(name, caption string, p *gplot.Plot, w, h vg.Length) error {
	return pg.Tiles(name, caption, [][]*gplot.Plot{{p}}, w, h)
}

// Tiles writes a grid of aligned plots as name.png and name.svg and links it
// from the page with the caption.
func (pg *Page) Tiles(name, caption string, rows [][]*gplot.Plot, w, h vg.Length) error {
	return pg.TilesBar(name, caption, rows, nil, w, h)
}

// TilesBar is Tiles with a colour bar (plot.ColorBar) at the right of the
// grid, the key of its heat maps; nil bar: none.
func (pg *Page) TilesBar(name, caption string, rows [][]*gplot.Plot, bar *gplot.Plot, w, h vg.Length) error {
	for _, format := range []string{"png", "svg"} {
		var b []byte
		var err error
		if bar != nil {
			b, err = plot.EncodeTilesBar(rows, bar, w, h, format)
		} else if len(rows) == 1 && len(rows[0]) == 1 {
			b, err = plot.Encode(rows[0][0], w, h, format)
		} else {
			b, err = plot.EncodeTiles(rows, w, h, format)
		}
		if err != nil {
			return fmt.Errorf("figure %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(pg.Dir, name+"."+format), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(&pg.body, "\n![%s](%s.png)\n\n*%s* ([SVG](%s.svg))\n\n", caption, name, caption, name)
	return nil
}

// Write writes index.md and prints its path to w.
func (pg *Page) Write(w io.Writer) error {
	path := filepath.Join(pg.Dir, "index.md")
	text := "# " + pg.Title + "\n\n" + strings.TrimLeft(pg.body.String(), "\n")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", path)
	return nil
}
