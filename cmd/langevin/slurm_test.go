package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSlurmJobArray starts a real one-node Slurm cluster (Debian's slurm-wlm
// and munge, as root), submits docs/slurm/chains.sbatch as a job array of 3
// tasks running the built langevin binary, waits for it, and checks that the
// three chain directories hold the chain files of one 3-chain run (but for
// the timing lines) and that their combined summary equals its summary.
//
// It skips when Slurm is not installed or the test is not root, unless
// LANGEVIN_REQUIRE_SLURM=1 (set by .ci/run, which installs Slurm), in which
// case it fails instead.
func TestSlurmJobArray(t *testing.T) {
	require := os.Getenv("LANGEVIN_REQUIRE_SLURM") == "1"
	skip := func(format string, args ...any) {
		t.Helper()
		if require {
			t.Fatalf("LANGEVIN_REQUIRE_SLURM=1: "+format, args...)
		}
		t.Skipf(format, args...)
	}
	if testing.Short() && !require {
		t.Skip("-short: a Slurm cluster takes seconds to start")
	}
	if runtime.GOOS != "linux" {
		skip("Slurm test on Linux only")
	}
	tools := map[string]string{}
	for _, name := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol"} {
		p, err := exec.LookPath(name)
		if err != nil {
			for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
				if _, serr := os.Stat(filepath.Join(dir, name)); serr == nil {
					p, err = filepath.Join(dir, name), nil
				}
			}
		}
		if err != nil {
			skip("%s not installed (apt-get install slurm-wlm munge)", name)
		}
		tools[name] = p
	}
	if os.Geteuid() != 0 {
		skip("the one-node Slurm runs as root")
	}
	// Short socket paths: a Unix socket path is limited to 107 bytes.
	tmp, err := os.MkdirTemp("", "lvslurm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	for _, d := range []string{"state", "spool", "munge", "out"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(tmp, "langevin")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Daemons run in the foreground as children of the test, stopped at the
	// end by their process ids.
	start := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(tools[name], args...)
		logf, err := os.Create(filepath.Join(tmp, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.Env = append(os.Environ(), "SLURM_CONF="+filepath.Join(tmp, "slurm.conf"))
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("%s log:\n%s", name, tail(string(b), 2000))
			}
		})
	}
	key := filepath.Join(tmp, "munge", "munge.key")
	sock := filepath.Join(tmp, "munge", "sock")
	if out, err := exec.Command(tools["mungekey"], "--create", "--keyfile", key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v\n%s", err, out)
	}
	start("munged", "--foreground", "--force", "--key-file", key, "--socket", sock,
		"--pid-file", filepath.Join(tmp, "munge", "pid"), "--seed-file", filepath.Join(tmp, "munge", "seed"),
		"--log-file", filepath.Join(tmp, "munge", "log"))
	waitFor(t, ctx, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	ctlPort, dPort := freePort(t), freePort(t)
	conf := fmt.Sprintf(`ClusterName=langevintest
SlurmctldHost=%[1]s
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.file.log
SlurmdLogFile=%[5]s/slurmd.file.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=%[1]s CPUs=%[6]d State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, ctlPort, dPort, sock, tmp, runtime.NumCPU())
	confPath := filepath.Join(tmp, "slurm.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	slurmEnv := append(os.Environ(), "SLURM_CONF="+confPath)
	start("slurmctld", "-D", "-i", "-f", confPath)
	start("slurmd", "-D", "-f", confPath, "-N", host)
	sinfo := func() string {
		cmd := exec.Command(tools["sinfo"], "-h", "-o", "%T")
		cmd.Env = slurmEnv
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	waitFor(t, ctx, "the node to be idle", func() bool { return sinfo() == "idle" })
	t.Cleanup(func() {
		cmd := exec.Command(tools["scontrol"], "shutdown")
		cmd.Env = slurmEnv
		cmd.Run()
	})

	// The array: 3 tasks, one chain each, from the script in the docs.
	script, err := filepath.Abs(filepath.Join("..", "..", "docs", "slurm", "chains.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	runArgs := []string{"--iters", "400", "--burnin", "100", "--thin", "5", "--seed", "11"}
	out := filepath.Join(tmp, "out")
	cmd := exec.CommandContext(ctx, tools["sbatch"], append([]string{"--wait", "--array=1-3",
		"--output=" + filepath.Join(tmp, "task-%a.out"), "--chdir=" + tmp, script}, runArgs...)...)
	cmd.Env = append(slurmEnv, "LANGEVIN="+bin, "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		for k := 1; k <= 3; k++ {
			tb, _ := os.ReadFile(filepath.Join(tmp, "task-"+strconv.Itoa(k)+".out"))
			t.Logf("task %d output:\n%s", k, tail(string(tb), 1500))
		}
		t.Fatalf("sbatch --wait: %v\n%s", err, b)
	}

	whole := filepath.Join(tmp, "whole")
	// --target-ess 0: the single run goes to --iters, as each task does.
	single := exec.Command(bin, append([]string{"run", "--quiet", "--chains", "3", "--target-ess", "0", "--out", whole}, runArgs...)...)
	if b, err := single.CombinedOutput(); err != nil {
		t.Fatalf("single run: %v\n%s", err, b)
	}
	var dirs []string
	for k := 1; k <= 3; k++ {
		dir := filepath.Join(out, "chain-"+strconv.Itoa(k))
		dirs = append(dirs, dir)
		for _, f := range []string{"chain-", "warmup-"} {
			name := f + strconv.Itoa(k) + ".csv"
			if !sameButTiming(t, filepath.Join(whole, name), filepath.Join(dir, name)) {
				t.Errorf("array task %d: %s differs from the single run's", k, name)
			}
		}
	}
	summary := func(args ...string) string {
		b, err := exec.Command(bin, append([]string{"summary", "--csv"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("summary %v: %v\n%s", args, err, b)
		}
		return string(b)
	}
	if a, b := summary(whole), summary(dirs...); a != b {
		t.Errorf("combined summary of the array differs from the single run's:\n%s\n%s", b, a)
	}
}

// waitFor polls cond every 100 ms until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
