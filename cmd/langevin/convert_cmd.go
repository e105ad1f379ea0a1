package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/internal/runctl"
)

// cmdConvert writes a data store (data.Store) once from a CSV or Parquet
// file, streaming it; run and predict then read the store's rows as they
// need them instead of loading the data (docs/scaling-out.md).
func cmdConvert(args []string, stdout, stderr io.Writer) error {
	var in, out, format, target string
	var f32, noHeader, force bool
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.StringVar(&in, "data", "", "input: a CSV (.gz read transparently) or Parquet `FILE`")
	fs.StringVar(&target, "target", "", "target `COL`umn by name or 1-based number, −1 = last (default: the last column)")
	fs.StringVar(&out, "out", "", "the store to write, `FILE.lvs` (written under FILE.lvs.tmp and renamed when complete)")
	fs.StringVar(&format, "format", "auto", "input format: auto|"+strings.Join(data.StreamFormats(), "|")+" (auto tells them by content)")
	fs.BoolVar(&f32, "float32", false, "store single precision: half the size, relative rounding ≤ 6e-8 (default: float64, exact)")
	fs.BoolVar(&noHeader, "no-header", false, "CSV: the first row is data (columns V1, V2, …)")
	fs.BoolVar(&force, "force", false, "replace an existing --out FILE")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fit.InputErrorf("unexpected argument %q (give the input with --data FILE)", fs.Arg(0))
	case in == "":
		return fit.InputErrorf("--data: no input file given (a CSV or Parquet file)")
	case in == "-":
		return fit.InputErrorf("--data -: a store is converted from a file, not standard input")
	case out == "":
		return fit.InputErrorf("--out: no output file given (FILE.lvs)")
	case format != "auto" && !slices.Contains(data.StreamFormats(), format):
		return fit.InputErrorf("--format %s: expected auto, %s", format, strings.Join(data.StreamFormats(), " or "))
	}
	if _, err := os.Stat(out); err == nil && !force {
		return fit.InputErrorf("--out %s exists: give --force to replace it", out)
	}
	// The store is written under out.tmp: a signal removes it and exits
	// (128 + the signal's number), leaving no partial file behind.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	defer func() { signal.Stop(sigs); close(quit) }()
	go func() {
		select {
		case sig := <-sigs:
			os.Remove(out + ".tmp")
			e := &runctl.Interrupted{Sig: sig, Phase: "convert"}
			fmt.Fprintf(stderr, "langevin convert: %v: %s.tmp removed\n", e, out)
			runctl.Exit(e.ExitCode())
		case <-quit:
		}
	}()
	t0 := time.Now()
	n, err := data.ConvertToStore(in, out, data.ConvertOptions{Format: format, Float32: f32,
		CSV: data.CSVOptions{Target: target, NoHeader: noHeader}})
	if err != nil {
		var pe *data.ParseError
		if errors.As(err, &pe) {
			return fit.InputErrorf("--data %v", err)
		}
		return fmt.Errorf("--out %s: %w", out, err)
	}
	st, err := data.OpenStore(out)
	if err != nil {
		return err
	}
	defer st.Close()
	prec := "float64"
	if st.Float32() {
		prec = "float32"
	}
	size := int64(0)
	if fi, err := os.Stat(out); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(stdout, "%s: %d rows × %d features + target %q, %s, %s, from %s in %.1f s\n",
		out, n, st.Dim(), st.Target(), prec, budget.FmtBytes(size), in, time.Since(t0).Seconds())
	return nil
}
