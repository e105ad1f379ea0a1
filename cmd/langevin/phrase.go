package main

import (
	"io"
	"sync"

	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/report"
)

// flagName phrases a setting of fit's messages as langevin's flag: iters
// is --iters.
func flagName(s fit.Setting) string { return "--" + string(s) }

// flagText phrases the settings that fit's text s names ({iters}) as the
// command's flags (--iters).
func flagText(s string) string { return fit.Phrase(s, flagName) }

// flagWriter phrases the settings named in what fit writes through it
// ({iters}) as the command's flags (--iters): Main's stdout and stderr. A
// setting's name cut short at the end of one Write waits for the next (or
// for Flush).
type flagWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

func newFlagWriter(w io.Writer) *flagWriter { return &flagWriter{w: w} }

func (f *flagWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := string(append(f.pending, p...))
	f.pending = f.pending[:0]
	// Hold back a '{' near the end that may open a setting's name.
	for i := len(s) - 1; i >= 0 && i >= len(s)-64; i-- {
		if s[i] == '{' {
			if fit.SettingAt(s[i:]) == 0 {
				f.pending = append(f.pending, s[i:]...)
				s = s[:i]
			}
			break
		}
	}
	if _, err := io.WriteString(f.w, flagText(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back.
func (f *flagWriter) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 {
		return nil
	}
	_, err := f.w.Write(f.pending)
	f.pending = f.pending[:0]
	return err
}

// Unwrap returns the writer written to (a terminal's *os.File: the
// progress line asks).
func (f *flagWriter) Unwrap() io.Writer { return f.w }

// phrasedError is an error of fit phrased with the command's flags: what a
// chain file's status line records.
type phrasedError struct{ err error }

func (e phrasedError) Error() string { return flagText(e.err.Error()) }
func (e phrasedError) Unwrap() error { return e.err }

// flagErr returns err phrased with the command's flags (nil stays nil).
func flagErr(err error) error {
	if err == nil {
		return nil
	}
	return phrasedError{err}
}

// flagReport phrases the text of a report page's options with the
// command's flags: the run's notes and warnings, as printed.
func flagReport(opt *report.Options) {
	opt.Intro, opt.Pre = flagText(opt.Intro), flagText(opt.Pre)
	for i, w := range opt.Warnings {
		opt.Warnings[i] = flagText(w)
	}
	for i := range opt.Sections {
		s := &opt.Sections[i]
		s.Title, s.Text, s.Pre = flagText(s.Title), flagText(s.Text), flagText(s.Pre)
	}
}
