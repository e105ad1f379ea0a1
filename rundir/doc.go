// Package rundir is the one reader and writer of a run directory, the --out
// DIR of langevin run:
//
//	chain-K.csv    the kept draws of chain K (1-based), CmdStan CSV
//	warmup-K.csv   its saved warm-up draws, CmdStan CSV (save_warmup = 1, num_samples = 0)
//	summary.csv    the summary table (diag.Table.WriteCSV)
//	model.json     the model specification, JSON (opaque to this package)
//	scaler.json    the standardisation of the features: {"mean": [...], "scale": [...]}, and of a
//	               regression response when the run standardised it: "target_mean", "target_scale"
//	report.html    the report, if one was written
//	resume.json    the run's arguments and input digests, for langevin run --resume (ResumeInfo)
//	checkpoint.bin the last checkpoint of a run going or stopped (Checkpoint)
//	.lock          the lock file of the writer (left in place; empty)
//
// Any of these files may also be gzip-compressed with a ".gz" suffix added,
// for reading (for example after gzip chain-*.csv).
//
// # Writing
//
// Create checks the directory before any work is done: it makes it if
// needed, fails at once if it is a file or cannot be written, takes an
// exclusive lock (flock(2) on DIR/.lock) so that a second process cannot
// write the same directory, and refuses a directory that holds the files of
// another run unless Options.Overwrite is set, in which case it removes them.
// A non-empty directory that holds none of a run's files (a symbolic link
// to /etc, a folder of data) is refused before anything is made in it, with
// or without Overwrite.
//
// The chain files are written as the draws come (Writer.Chain returns a
// ChainWriter, a langevin.DrawSink): each draw is formatted into one whole
// line and the pending lines are written to the file, always at line ends,
// at least every Options.FlushEvery and whenever 1 MiB is pending. A process
// killed at any moment (SIGKILL included) leaves files whose rows are whole
// and are the first rows written, at most FlushEvery behind: Linux cuts a
// write short on a kill only at a page boundary (4 KiB) of the file, so a
// row that would straddle one is moved to the next page by a padding comment
// line ("#" and spaces), and rows longer than a page (wide models) are first
// written as comment lines, '#' for their first byte, which a second write
// over them puts back once the first has returned. What a kill cuts is a
// comment line, which every Stan CSV reader skips. When a chain is closed,
// its file ends with CmdStan's
// timing block followed by the status comment
//
//	# Run finished
//
// or, for a run that stopped early (a signal, a divergence, an error),
//
//	# Run stopped: <reason>
//
// A file without either line belongs to a run that is still going or was
// killed. A run that thins its draws further after writing them
// (langevin.Options.MaxKeep) calls ChainWriter.Keep with the draws it kept:
// Writer.Close then replaces the files by ones with only those rows (copied
// line for line) and the final thinning in their headers, so that the files
// hold the draws the run summarised. It does so all or nothing: every chain
// file is closed first, then the copies are written beside them
// (".tmp-chain-K.csv", synced), then the marker ".switch" listing them is
// written and the copies renamed over the files, then the marker removed.
// Read reads a copy in place of its file while the marker is there, so a
// kill at any moment leaves a directory that reads as all draws as written
// or all draws as kept; chain files with different thinnings (left by an
// older langevin) are refused with ErrMixed. Every chain file records the run's identifier as "run_id = ..." in
// its configuration comments, so that files of two runs are never read as
// one.
//
// summary.csv, model.json, scaler.json and report.html are written
// atomically: to a temporary file in the directory, synced, then renamed, so
// that they are either absent or complete.
//
// # Checkpoints
//
// Writer.Checkpoint, called between rounds of a run (langevin.Options.Checkpoint),
// flushes and syncs every chain file, then writes checkpoint.bin atomically:
// each file's size, its CRC-32C and the iterations of its rows, and the
// sampler's state (opaque here). Reopen locks the directory of a stopped run
// again and ResumeChain cuts each file back to its checkpoint (what a kill
// or a SIGTERM's closing lines left after it goes), checks it (CRC, run
// identifier, columns), reads its draws back — exactly: the numbers are
// written in the shortest form that reads back to the same bits — and
// appends from there. Writer.Finished marks a run whose sampling ended by
// itself (resume.json) — after flushing and syncing every chain file, so
// that a kill from then on finds every draw on disk — and removes the
// checkpoint before the end-of-run
// rewrite, so that a directory is never resumed from a checkpoint older than
// its files.
//
// # Reading
//
// Read reads a run directory, finished or not: whole lines only (a line cut
// by a crash is dropped and reported), the chains in order, their warm-up
// draws, the settings, the status of each chain, the model specification
// and the scaler. It refuses chain files of different runs or with a missing
// chain number. ReadFiles reads a list of chain files.
package rundir
