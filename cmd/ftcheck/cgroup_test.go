package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/checker"
)

// childCgroup is a cgroup made for a test: its directory, the file that
// sets its memory limit and the file that counts its OOM kills.
type childCgroup struct {
	dir, limitFile, oomFile string
}

// ownCgroupPath returns the process's cgroup path from /proc/self/cgroup:
// the v1 memory hierarchy's (v2 false) or the v2 one's, or "/".
func ownCgroupPath(v2 bool) string {
	b, _ := os.ReadFile("/proc/self/cgroup")
	for line := range strings.Lines(string(b)) {
		fs := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(fs) != 3 {
			continue
		}
		if v2 && fs[0] == "0" && fs[1] == "" || !v2 && strings.Contains(","+fs[1]+",", ",memory,") {
			return fs[2]
		}
	}
	return "/"
}

// makeChildCgroup creates a cgroup with a memory limit of limit bytes,
// under the test process's own cgroup or else the hierarchy's root,
// cgroup v2 first and v1 next; the cgroup is removed at the end of the
// test. It returns the reasons it failed when no hierarchy allows one.
func makeChildCgroup(t *testing.T, limit int64) (*childCgroup, error) {
	type hierarchy struct {
		mount, own, limit, oom string
	}
	var hs []hierarchy
	for _, m := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		if c, err := os.ReadFile(filepath.Join(m, "cgroup.controllers")); err == nil && strings.Contains(" "+string(c)+" ", " memory") {
			hs = append(hs, hierarchy{m, ownCgroupPath(true), "memory.max", "memory.events"})
		}
	}
	hs = append(hs, hierarchy{"/sys/fs/cgroup/memory", ownCgroupPath(false), "memory.limit_in_bytes", "memory.oom_control"})
	name := fmt.Sprintf("ftcheck-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	var why []string
	for _, h := range hs {
		for _, parent := range []string{filepath.Join(h.mount, h.own), h.mount} {
			dir := filepath.Join(parent, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				why = append(why, err.Error())
				continue
			}
			cg := &childCgroup{dir, filepath.Join(dir, h.limit), filepath.Join(dir, h.oom)}
			if err := os.WriteFile(cg.limitFile, []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
				why = append(why, err.Error())
				os.Remove(dir)
				continue
			}
			t.Cleanup(func() {
				// The kernel may need a moment after the last process left.
				for i := 0; ; i++ {
					err := os.Remove(dir)
					if err == nil || errors.Is(err, os.ErrNotExist) {
						return
					}
					if i == 50 {
						t.Errorf("removing the cgroup %s: %v", dir, err)
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			})
			return cg, nil
		}
	}
	return nil, errors.New(strings.Join(why, "; "))
}

// oomKills returns the cgroup's count of processes killed by the OOM
// killer (-1: unknown).
func (cg *childCgroup) oomKills() int {
	b, err := os.ReadFile(cg.oomFile)
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if fs := strings.Fields(line); len(fs) == 2 && fs[0] == "oom_kill" {
			n, err := strconv.Atoi(fs[1])
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// buildFtcheck builds this command into a temporary directory.
func buildFtcheck(t *testing.T) string {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to build ftcheck: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ftcheck")
	out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestCgroupChildLimit runs a check that needs more memory than it has
// inside a child cgroup limited to 1.5 GiB (as a Slurm job, a systemd unit
// or a container without a cgroup namespace runs): it must stop at its
// memory bound, taken from that cgroup, print its counts with
// complete=false, and exit with status 3 (incomplete) instead of being
// killed by the kernel. It needs root and a writable cgroup hierarchy with
// the memory controller (v1 or v2).
func TestCgroupChildLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cgroups are Linux's")
	}
	if os.Geteuid() != 0 {
		t.Skip("creating a child cgroup needs root")
	}
	cg, err := makeChildCgroup(t, 1536<<20)
	if err != nil {
		t.Skipf("no writable cgroup hierarchy with the memory controller (v2 at /sys/fs/cgroup or /sys/fs/cgroup/unified, v1 at /sys/fs/cgroup/memory): %v", err)
	}
	bin := buildFtcheck(t)
	// The shell moves itself into the cgroup, then becomes ftcheck.
	stdout, ps := cg.run(t, 2*time.Minute, []string{"GOMEMLIMIT=", "GOGC="},
		bin, "check", "correction", "--tree", "binomial", "--correction", "checked", "--start", "overlapped",
		"--P", "8", "--faults", "3", "--quiet", "--out", t.TempDir())
	out := stdout
	for _, want := range []string{
		"distinct states,",
		"complete=false (max-memory)",
		"hint: the search stopped at its memory bound (",
		"cgroup v",
		filepath.Base(cg.dir) + " (1536 MiB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if code := ps.ExitCode(); code != 3 {
		t.Errorf("exit status %d, want 3 (incomplete)", code)
	}
}

// run starts name with args inside the cgroup (a shell moves itself into
// it, then execs the command) with env added to the test's environment,
// waits at most timeout, and fails the test when the command did not stop
// in time, could not run, was killed by a signal, or the cgroup counts an
// OOM kill. It returns the command's stdout and its state.
func (cg childCgroup) run(t *testing.T, timeout time.Duration, env []string, name string, args ...string) (string, *os.ProcessState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(cg.dir, "cgroup.procs"), name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("ran %.1fs in %s; stdout:\n%s\nstderr:\n%s", time.Since(start).Seconds(), cg.dir, stdout.String(), stderr.String())
	if ctx.Err() != nil {
		t.Fatalf("did not stop within %v", timeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %s: %v", name, err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by signal %v (OOM kills in the cgroup: %d)", ws.Signal(), cg.oomKills())
	}
	if n := cg.oomKills(); n > 0 {
		t.Errorf("the cgroup counts %d OOM kills", n)
	}
	return stdout.String(), cmd.ProcessState
}

// TestCgroupApplySharesBound: without --max-memory, apply passes the
// machine's bound on to the search in the options and gives the Go runtime
// the same soft memory limit; with it, both take --max-memory.
func TestCgroupApplySharesBound(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	want, from := checker.MachineMemoryBound()
	if want <= 0 {
		t.Skip("the machine's memory is unknown")
	}
	var opt checker.Options
	(&scaleFlags{}).apply(&opt)
	lim := debug.SetMemoryLimit(-1)
	// The machine's figure moves a little between two readings (other
	// processes, this process's resident set).
	if d := opt.MaxMemory - want; d < -want/20 || d > want/20 || lim != opt.MaxMemory || opt.MemoryFrom == "" ||
		strings.SplitN(opt.MemoryFrom, " (", 2)[0] != strings.SplitN(from, " (", 2)[0] {
		t.Fatalf("options bound %d (%q), runtime limit %d; machine bound %d (%q)", opt.MaxMemory, opt.MemoryFrom, lim, want, from)
	}
	opt = checker.Options{MaxMemory: 300 << 20}
	(&scaleFlags{}).apply(&opt)
	if lim := debug.SetMemoryLimit(-1); opt.MaxMemory != 300<<20 || lim != 300<<20 || opt.MemoryFrom != "--max-memory" {
		t.Fatalf("--max-memory 300: options bound %d (%q), runtime limit %d", opt.MaxMemory, opt.MemoryFrom, lim)
	}
}
