package experiment

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	const name = "test-registry-echo"
	Register(Experiment{Name: name, Summary: "echoes its --msg", Run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := flag.NewFlagSet("experiment "+name, flag.ContinueOnError)
		msg := fs.String("msg", "", "what to print")
		if err := ParseFlags(fs, args, stdout); err != nil {
			return err
		}
		_, err := io.WriteString(stdout, *msg)
		return err
	}})
	t.Cleanup(func() { mu.Lock(); delete(registry, name); mu.Unlock() })

	if _, ok := Lookup(name); !ok {
		t.Fatalf("Lookup(%q) not found", name)
	}
	if !slices.Contains(Names(), name) || !slices.IsSorted(Names()) {
		t.Errorf("Names() = %v: want sorted, containing %q", Names(), name)
	}
	if !strings.Contains(List(), "echoes its --msg") {
		t.Errorf("List() lacks the summary:\n%s", List())
	}
	var out bytes.Buffer
	if err := Run(context.Background(), name, []string{"--msg", "hi"}, &out, io.Discard); err != nil || out.String() != "hi" {
		t.Errorf("Run: %q, %v; want \"hi\", nil", out.String(), err)
	}
	var ue *UsageError
	if err := Run(context.Background(), "no-such", nil, io.Discard, io.Discard); !errors.As(err, &ue) || !strings.Contains(err.Error(), name) {
		t.Errorf("unknown name: %v; want a *UsageError listing %q", err, name)
	}
	if err := Run(context.Background(), name, []string{"--nope"}, io.Discard, io.Discard); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--nope") {
		t.Errorf("bad flag: %v; want a *UsageError naming --nope", err)
	}
	if err := Run(context.Background(), name, []string{"extra"}, io.Discard, io.Discard); !errors.As(err, &ue) {
		t.Errorf("positional argument: %v; want a *UsageError", err)
	}
	out.Reset()
	if err := Run(context.Background(), name, []string{"-h"}, &out, io.Discard); !errors.Is(err, ErrHelp) || !strings.Contains(out.String(), "-msg") {
		t.Errorf("-h: %v, %q; want ErrHelp and the flags", err, out.String())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	Register(Experiment{Name: name, Run: func(context.Context, []string, io.Writer, io.Writer) error { return nil }})
}
