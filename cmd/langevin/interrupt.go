package main

// How langevin run stops on SIGINT (Ctrl-C) and SIGTERM (what timeout(1) and
// cluster schedulers send), whatever it is doing:
//
//   - while the data are read and the model is built nothing has been drawn:
//     it exits at once;
//   - during the MAP, the Laplace approximation, burn-in and sampling the
//     run's context is cancelled: the chains stop within one iteration, the
//     summary of the draws so far is printed (with the right counts) and the
//     chain files are closed with the status line "# Run stopped:
//     interrupted by SIGTERM during sampling";
//   - while the summary and the run directory are written it finishes them
//     (a fraction of a second), then exits;
//   - during the test-set predictions and the report it exits at once: the
//     run directory is complete by then.
//
// A second signal exits at once in every phase, closing the chain files
// first. The exit code of an interrupted run is 128 + the signal's number, as
// shells report it: 130 for SIGINT, 143 for SIGTERM.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupted is the error of a run stopped by a signal.
type interrupted struct {
	sig   os.Signal
	phase string
}

func (e *interrupted) Error() string {
	return fmt.Sprintf("interrupted by %s during %s", signalName(e.sig), e.phase)
}

// exitCode is 128 + the signal's number.
func (e *interrupted) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// exit is os.Exit; tests of the phases that exit at once replace it.
var exit = os.Exit

// stopper turns SIGINT and SIGTERM into the cancellation of the run's
// context or, in a phase that cannot be cancelled, an immediate exit.
type stopper struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	sigs   chan os.Signal
	stderr io.Writer

	mu    sync.Mutex
	phase string
	hard  bool    // a signal in this phase exits at once
	rd    *runDir // closed before an immediate exit
	err   *interrupted
	done  chan struct{}

	abandoned bool // do returned before its phase ended
}

func newStopper(stderr io.Writer) *stopper {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &stopper{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 2), stderr: stderr, done: make(chan struct{})}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go s.loop()
	return s
}

// enter records the phase the run is in; hard phases exit on a signal.
func (s *stopper) enter(phase string, hard bool) {
	s.mu.Lock()
	s.phase, s.hard = phase, hard
	s.mu.Unlock()
}

// setRunDir records the run directory to close before an immediate exit.
func (s *stopper) setRunDir(rd *runDir) {
	s.mu.Lock()
	s.rd = rd
	s.mu.Unlock()
}

// interrupted returns the interruption, or nil.
func (s *stopper) interrupted() *interrupted {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *stopper) loop() {
	for {
		select {
		case <-s.done:
			return
		case sig := <-s.sigs:
			s.mu.Lock()
			again := s.err != nil
			if !again {
				s.err = &interrupted{sig: sig, phase: s.phase}
				s.cancel(s.err)
			}
			err, hard, rd := s.err, s.hard || again, s.rd
			s.mu.Unlock()
			if !hard {
				fmt.Fprintf(s.stderr, "\nlangevin run: %v: stopping (a second signal exits at once)\n", err)
				continue
			}
			if rd != nil {
				rd.w.Close(err)
			}
			fmt.Fprintf(s.stderr, "\nlangevin run: %v\n", err)
			exit(err.exitCode())
		}
	}
}

// do runs f, a phase that cannot check ctx everywhere (an O(d³)
// factorisation of gonum's runs to its end), and returns nil when it is
// done; if ctx ends first it returns at once, with the interruption or
// ctx's cause, and leaves f to finish in the background (the command then
// exits, or never reads what f writes).
func (s *stopper) do(ctx context.Context, f func()) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		select {
		case <-done: // finished as ctx ended: its result stands
			return nil
		default:
		}
		s.mu.Lock()
		s.abandoned = true
		s.mu.Unlock()
		if e := s.interrupted(); e != nil {
			return e
		}
		return context.Cause(ctx)
	}
}

// left reports whether do left a phase running in the background: what it
// uses (the data) must not be closed under it.
func (s *stopper) left() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.abandoned
}

// stop restores the default handling of the signals.
func (s *stopper) stop() {
	signal.Stop(s.sigs)
	close(s.done)
	s.cancel(nil)
}
