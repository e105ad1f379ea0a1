package fit_test

import (
	"testing"

	"github.com/langevin-go/langevin/fit"
)

func TestPhrase(t *testing.T) {
	flag := func(s fit.Setting) string { return "--" + string(s) }
	for _, c := range []struct{ in, want string }{
		{"{thin} 0: expected at least 1", "--thin 0: expected at least 1"},
		{"raise {target-ess} or {max-time}.", "raise --target-ess or --max-time."},
		{"no setting", "no setting"},
		{`{"a": 1} {} {Iters} {1x} {x`, `{"a": 1} {} {Iters} {1x} {x`},
		{"{{iters}}", "{--iters}"},
	} {
		if got := fit.Phrase(c.in, flag); got != c.want {
			t.Errorf("Phrase(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want int
	}{{"{iters} x", 7}, {"{ite", 0}, {"{", 0}, {"{I}", -1}, {"x{a}", -1}, {"{a b}", -1}} {
		if got := fit.SettingAt(c.in); got != c.want {
			t.Errorf("SettingAt(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
