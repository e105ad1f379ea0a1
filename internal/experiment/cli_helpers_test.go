package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// runMain runs "experiment NAME args…" as the command line does and returns
// its exit code (0 success or help, 2 usage error, 1 failure) and output.
func runMain(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	if len(args) < 2 || args[0] != "experiment" {
		panic("runMain: expected experiment NAME …")
	}
	err := Run(context.Background(), args[1], args[2:], &o, &e)
	var ue *UsageError
	switch {
	case err == nil || errors.Is(err, ErrHelp):
	case errors.As(err, &ue):
		code = 2
	default:
		code = 1
	}
	if err != nil && !errors.Is(err, ErrHelp) {
		e.WriteString("langevin experiment: " + err.Error() + "\n")
	}
	return code, o.String(), e.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
