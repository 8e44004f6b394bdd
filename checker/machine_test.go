package checker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeStatm makes root's /proc/self/statm say the process has rss bytes
// resident.
func writeStatm(t *testing.T, root string, rss int64) {
	t.Helper()
	writeFile(t, root, "proc/self/statm", fmt.Sprintf("100000 %d 100 5 0 1000 0\n", rss/int64(os.Getpagesize())))
}

// wantBound is the bound for available bytes: less max(1/8, min(256 MiB,
// half)).
func wantBound(available int64) int64 {
	return available - max(available/8, min(256<<20, available/2))
}

// checkBound fails unless the machine under root gives the bound of
// available bytes, from a source that names every string of from.
func checkBound(t *testing.T, root, what string, available int64, from ...string) {
	t.Helper()
	b, src := memoryBound(Options{machineRoot: root})
	if b != wantBound(available) {
		t.Fatalf("%s: bound %d MiB (%s), want %d MiB (of %d MiB available)", what, b>>20, src, wantBound(available)>>20, available>>20)
	}
	for _, f := range from {
		if !strings.Contains(src, f) {
			t.Fatalf("%s: source %q does not name %q", what, src, f)
		}
	}
}

const gib = 1 << 30

// TestMachineMemory: without a cgroup limit the bound follows
// /proc/meminfo (MemAvailable plus the process's own resident set, else
// MemTotal); a cgroup limit below it wins; "max" and v1's huge values mean
// no limit.
func TestMachineMemory(t *testing.T) {
	root := t.TempDir()
	if v, _ := memoryBound(Options{machineRoot: root}); v != 0 {
		t.Fatalf("nothing readable: %d", v)
	}
	writeFile(t, root, "proc/meminfo", "MemFree: 10 kB\nMemTotal:       8388608 kB\n")
	checkBound(t, root, "MemTotal", 8*gib, "MemTotal")
	writeFile(t, root, "proc/meminfo", "MemTotal:       8388608 kB\nMemFree: 10 kB\nMemAvailable:   2097152 kB\n")
	checkBound(t, root, "MemAvailable", 2*gib, "MemAvailable")
	writeStatm(t, root, 512<<20)
	checkBound(t, root, "MemAvailable + RSS", 2*gib+512<<20, "MemAvailable", "resident")

	// The root limits, as a container that sees its own cgroup as the root.
	writeFile(t, root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
	checkBound(t, root, "v1 without a limit", 2*gib+512<<20, "MemAvailable")
	writeFile(t, root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n")
	checkBound(t, root, "v1 root", gib, "v1", "memory.limit_in_bytes")
	writeFile(t, root, "sys/fs/cgroup/memory.max", "max\n")
	writeFile(t, root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n")
	checkBound(t, root, "v2 max", gib, "v1")
	writeFile(t, root, "sys/fs/cgroup/memory.max", "805306368\n")
	checkBound(t, root, "v2 root", 768<<20, "v2", "memory.max")

	// A small limit still gives a positive bound.
	writeFile(t, root, "sys/fs/cgroup/memory.max", "209715200\n")
	checkBound(t, root, "200 MiB", 200<<20, "v2")
	if b, _ := memoryBound(Options{machineRoot: root}); b <= 0 {
		t.Fatalf("200 MiB limit: bound %d", b)
	}
	if b, _ := memoryBound(Options{machineRoot: root, MaxMemory: -1}); b != 0 {
		t.Fatalf("negative MaxMemory: bound %d", b)
	}
	if b, src := memoryBound(Options{machineRoot: root, MaxMemory: 5 << 20, MemoryFrom: "--max-memory"}); b != 5<<20 || src != "--max-memory" {
		t.Fatalf("MaxMemory with MemoryFrom: %d %q", b, src)
	}
}

// TestCgroupV1Own: the process's own v1 cgroup (from /proc/self/cgroup)
// and its ancestors are read, the smallest limit wins, an ancestor with
// memory.use_hierarchy 0 does not count, and what other processes hold in
// a cgroup is taken from its limit.
func TestCgroupV1Own(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "proc/meminfo", "MemTotal: 16777216 kB\nMemAvailable: 16777216 kB\n")
	writeFile(t, root, "proc/self/cgroup", "9:name=systemd:/\n5:cpu,cpuacct:/other\n4:memory:/slurm/job7\n0::/\n")
	writeStatm(t, root, 100<<20)
	mem := "sys/fs/cgroup/memory/"
	writeFile(t, root, mem+"memory.limit_in_bytes", "9223372036854771712\n")
	writeFile(t, root, mem+"slurm/memory.limit_in_bytes", "9223372036854771712\n")
	writeFile(t, root, mem+"slurm/job7/memory.limit_in_bytes", "1610612736\n")
	checkBound(t, root, "own", 1536<<20, "v1", "/slurm/job7", "1536 MiB")

	// A parent smaller than the child wins.
	writeFile(t, root, mem+"slurm/memory.limit_in_bytes", "1073741824\n")
	writeFile(t, root, mem+"slurm/memory.use_hierarchy", "1\n")
	checkBound(t, root, "parent", gib, "v1", "of /slurm ")
	// Unless the parent does not account for its children.
	writeFile(t, root, mem+"slurm/memory.use_hierarchy", "0\n")
	checkBound(t, root, "parent without hierarchy", 1536<<20, "/slurm/job7")
	writeFile(t, root, mem+"slurm/memory.use_hierarchy", "1\n")

	// Other processes in the parent hold 600 MiB − 100 MiB of inactive
	// file cache − this process's 100 MiB resident = 400 MiB.
	writeFile(t, root, mem+"slurm/memory.usage_in_bytes", fmt.Sprint(600<<20))
	writeFile(t, root, mem+"slurm/memory.stat", fmt.Sprintf("cache 0\ninactive_file 1\ntotal_inactive_file %d\n", 100<<20))
	checkBound(t, root, "others", gib-400<<20, "of /slurm ", "400 MiB of it held by other processes")
	// Usage below the process's own resident set: nobody else.
	writeFile(t, root, mem+"slurm/memory.usage_in_bytes", fmt.Sprint(150<<20))
	checkBound(t, root, "no others", gib, "of /slurm ")

	// MemAvailable below the limits wins.
	writeFile(t, root, "proc/meminfo", "MemTotal: 16777216 kB\nMemAvailable: 524288 kB\n")
	checkBound(t, root, "MemAvailable", 612<<20, "MemAvailable")
}

// TestCgroupV2Own: the v2 cgroup (0::/path) and its ancestors under
// /sys/fs/cgroup, the smallest memory.max wins, with others' usage
// (memory.current less inactive_file) taken off.
func TestCgroupV2Own(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "proc/self/cgroup", "0::/user.slice/user-0.slice/session-1.scope\n")
	writeStatm(t, root, 50<<20)
	v2 := "sys/fs/cgroup/"
	writeFile(t, root, v2+"cgroup.controllers", "cpu io memory pids\n")
	writeFile(t, root, v2+"user.slice/user-0.slice/session-1.scope/memory.max", "max\n")
	if b, _ := memoryBound(Options{machineRoot: root}); b != 0 {
		t.Fatalf("no limit, no meminfo: %d", b)
	}
	writeFile(t, root, v2+"user.slice/memory.max", "2147483648\n")
	checkBound(t, root, "grandparent", 2*gib, "v2", "memory.max of /user.slice ")
	writeFile(t, root, v2+"user.slice/user-0.slice/session-1.scope/memory.max", "1610612736\n")
	checkBound(t, root, "own", 1536<<20, "v2", "/user.slice/user-0.slice/session-1.scope")
	writeFile(t, root, v2+"user.slice/memory.current", fmt.Sprint(1<<30))
	writeFile(t, root, v2+"user.slice/memory.stat", fmt.Sprintf("anon 1\nfile 2\ninactive_file %d\nactive_file 3\n", 74<<20))
	// 2 GiB − (1024 − 74 − 50) MiB = 1148 MiB, below the own 1536 MiB.
	checkBound(t, root, "others", 1148<<20, "memory.max of /user.slice ", "900 MiB of it held by other processes")
}

// TestCgroupHybrid: v1 memory lines and a v2 hierarchy at
// /sys/fs/cgroup/unified are both read; /sys/fs/cgroup, a tmpfs without
// cgroup.controllers, is not a v2 mount.
func TestCgroupHybrid(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "proc/meminfo", "MemTotal: 16777216 kB\nMemAvailable: 16777216 kB\n")
	writeFile(t, root, "proc/self/cgroup", "4:memory:/job\n1:cpu:/\n0::/job\n")
	writeFile(t, root, "sys/fs/cgroup/memory/job/memory.limit_in_bytes", "3221225472\n")
	writeFile(t, root, "sys/fs/cgroup/job/memory.max", "1073741824\n") // not a v2 mount
	checkBound(t, root, "v1", 3*gib, "v1", "/job")
	writeFile(t, root, "sys/fs/cgroup/unified/cgroup.controllers", "memory\n")
	writeFile(t, root, "sys/fs/cgroup/unified/job/memory.max", "2147483648\n")
	checkBound(t, root, "unified", 2*gib, "v2", "/job")
	writeFile(t, root, "sys/fs/cgroup/memory/job/memory.limit_in_bytes", "1610612736\n")
	checkBound(t, root, "v1 below", 1536<<20, "v1", "/job")
}

// TestCgroupContainerView: a path that is not under the mount (a
// container without a cgroup namespace sees its own cgroup at the mount's
// root) is found by its trailing components, and the mount's root counts.
func TestCgroupContainerView(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "proc/meminfo", "MemTotal: 16777216 kB\nMemAvailable: 16777216 kB\n")
	writeFile(t, root, "proc/self/cgroup", "4:memory:/kubepods/pod1/ctr\n")
	writeFile(t, root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "3221225472\n")
	checkBound(t, root, "root", 3*gib, "v1", "of / ")
	writeFile(t, root, "sys/fs/cgroup/memory/ctr/memory.limit_in_bytes", "2147483648\n")
	checkBound(t, root, "trailing", 2*gib, "v1", "of /ctr ")
}

// TestGracefulStopAtMachineBound: a search under a machine whose cgroup
// allows less than the search needs stops with StopMaxMemory, Complete
// false, its counts and a hint, in BFS (compact and whole states) and DFS.
func TestGracefulStopAtMachineBound(t *testing.T) {
	root := t.TempDir()
	// 2 MiB less a margin of 1 MiB: a bound of 1 MiB.
	writeFile(t, root, "sys/fs/cgroup/cgroup.controllers", "memory\n")
	writeFile(t, root, "sys/fs/cgroup/memory.max", "2097152\n")
	for _, opt := range []Options{{Workers: 2}, {Workers: 2, WholeStates: true}, {Mode: DepthFirst}} {
		opt.machineRoot = root
		r := Search[pt](&cgrid{grid: grid{N: 2000}}, opt)
		if r.Stop != StopMaxMemory || r.Complete || r.Err != nil || r.States == 0 || r.Transitions == 0 ||
			r.MemoryBound != 1<<20 || !strings.Contains(r.Hint, "--dfs") || !strings.Contains(r.MemoryFrom, "v2") ||
			!strings.Contains(r.Hint, "Go heap") {
			t.Fatalf("%v: stop %s complete %v err %v states %d bound %d hint %q", opt.Mode, r.Stop, r.Complete, r.Err, r.States, r.MemoryBound, r.Hint)
		}
	}
}
