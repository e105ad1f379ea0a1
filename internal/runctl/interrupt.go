package runctl

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

// Interrupted is the error of a run stopped by a signal.
type Interrupted struct {
	Sig   os.Signal
	Phase string // what the run was doing
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("interrupted by %s during %s", SignalName(e.Sig), e.Phase)
}

// ExitCode is 128 + the signal's number.
func (e *Interrupted) ExitCode() int {
	if s, ok := e.Sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// SignalName is the conventional name of s: SIGINT, SIGTERM, ….
func SignalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// Exit is os.Exit; tests of the phases that exit at once replace it.
var Exit = os.Exit

// Stopper turns SIGINT and SIGTERM into the cancellation of the run's
// context or, in a phase that cannot be cancelled, an immediate exit.
type Stopper struct {
	Ctx    context.Context // cancelled by the first signal in a soft phase
	cancel context.CancelCauseFunc
	sigs   chan os.Signal
	stderr io.Writer

	mu    sync.Mutex
	phase string
	hard  bool        // a signal in this phase exits at once
	close func(error) // called before an immediate exit (closes the run directory)
	err   *Interrupted
	done  chan struct{}

	abandoned bool // do returned before its phase ended
}

// NewStopper returns a Stopper whose context is cancelled by SIGINT or SIGTERM;
// it reports the signal to stderr.
func NewStopper(stderr io.Writer) *Stopper {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Stopper{Ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 2), stderr: stderr, done: make(chan struct{})}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go s.loop()
	return s
}

// Enter records the phase the run is in; hard phases exit on a signal.
func (s *Stopper) Enter(phase string, hard bool) {
	s.mu.Lock()
	s.phase, s.hard = phase, hard
	s.mu.Unlock()
}

// SetCloser records what to close before an immediate exit (the run
// directory's files, with the interruption as their status).
func (s *Stopper) SetCloser(close func(error)) {
	s.mu.Lock()
	s.close = close
	s.mu.Unlock()
}

// ExpireIn ends the process with exit code 1 and err if the run is in the
// given phase (a phase that cannot be cancelled, such as the loading of
// the data): what a time budget (--max-time) does there. Otherwise it does
// nothing; the later phases watch the budget themselves.
func (s *Stopper) ExpireIn(phase string, err error) {
	s.mu.Lock()
	if s.phase != phase || s.err != nil {
		s.mu.Unlock()
		return
	}
	closeFn := s.close
	s.mu.Unlock()
	if closeFn != nil {
		closeFn(err)
	}
	fmt.Fprintf(s.stderr, "langevin run: %v\n", err)
	Exit(1)
}

// Interrupted returns the interruption, or nil.
func (s *Stopper) Interrupted() *Interrupted {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Stopper) loop() {
	for {
		select {
		case <-s.done:
			return
		case sig := <-s.sigs:
			s.mu.Lock()
			again := s.err != nil
			if !again {
				s.err = &Interrupted{Sig: sig, Phase: s.phase}
				s.cancel(s.err)
			}
			err, hard, closeFn := s.err, s.hard || again, s.close
			s.mu.Unlock()
			if !hard {
				fmt.Fprintf(s.stderr, "\nlangevin run: %v: stopping (a second signal exits at once)\n", err)
				continue
			}
			if closeFn != nil {
				closeFn(err)
			}
			fmt.Fprintf(s.stderr, "\nlangevin run: %v\n", err)
			Exit(err.ExitCode())
		}
	}
}

// Do runs f, a phase that cannot check ctx everywhere (an O(d³)
// factorisation of gonum's runs to its end), and returns nil when it is
// done; if ctx ends first it returns at once, with the interruption or
// ctx's cause, and leaves f to finish in the background (the command then
// exits, or never reads what f writes).
func (s *Stopper) Do(ctx context.Context, f func()) error {
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
		if e := s.Interrupted(); e != nil {
			return e
		}
		return context.Cause(ctx)
	}
}

// Left reports whether do left a phase running in the background: what it
// uses (the data) must not be closed under it.
func (s *Stopper) Left() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.abandoned
}

// Stop restores the default handling of the signals.
func (s *Stopper) Stop() {
	signal.Stop(s.sigs)
	close(s.done)
	s.cancel(nil)
}
