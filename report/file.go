package report

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/rundir"
)

// WriteFile builds the report of tr (FromTrace) and writes it to path as
// HTML, creating path's directory. The write is atomic
// (rundir.WriteFileAtomic): a reader sees the old page or the new one,
// never part of one.
func WriteFile(path, title string, tr *langevin.Trace, opt Options) error {
	r, err := FromTrace(title, tr, opt)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return rundir.WriteFileAtomic(path, r.WriteHTML)
}

// RunTitle titles the report of a run directory from its settings
// (rundir.Run.Settings): "langevin run", then ": MODEL" and ", ALGORITHM"
// (upper case) for the model and algorithm keys. trajectory reports an
// optimiser (algorithm gd or sgd), whose iterates are reported as a
// trajectory (Options.Trajectory), not as draws.
func RunTitle(settings [][2]string) (title string, trajectory bool) {
	title = "langevin run"
	for _, kv := range settings {
		if kv[0] == "model" {
			title += ": " + kv[1]
		}
		if kv[0] == "algorithm" {
			title += ", " + strings.ToUpper(kv[1])
			trajectory = kv[1] == "gd" || kv[1] == "sgd"
		}
	}
	return title, trajectory
}
