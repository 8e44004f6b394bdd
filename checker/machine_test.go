package checker

import (
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

// TestMachineMemory: the cgroup v2 limit wins, then v1, then MemTotal;
// "max" and v1's huge values mean no limit.
func TestMachineMemory(t *testing.T) {
	root := t.TempDir()
	if v, _ := machineMemory(root); v != 0 {
		t.Fatalf("nothing readable: %d", v)
	}
	writeFile(t, root, "proc/meminfo", "MemFree: 10 kB\nMemTotal:       2048 kB\n")
	if v, src := machineMemory(root); v != 2048<<10 || !strings.Contains(src, "physical") {
		t.Fatalf("meminfo: %d %s", v, src)
	}
	writeFile(t, root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
	if v, _ := machineMemory(root); v != 2048<<10 {
		t.Fatalf("v1 without a limit: %d", v)
	}
	writeFile(t, root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n")
	if v, src := machineMemory(root); v != 1<<30 || !strings.Contains(src, "v1") {
		t.Fatalf("v1: %d %s", v, src)
	}
	writeFile(t, root, "sys/fs/cgroup/memory.max", "max\n")
	if v, _ := machineMemory(root); v != 1<<30 {
		t.Fatalf("v2 max: %d", v)
	}
	writeFile(t, root, "sys/fs/cgroup/memory.max", "536870912\n")
	if v, src := machineMemory(root); v != 512<<20 || !strings.Contains(src, "v2") {
		t.Fatalf("v2: %d %s", v, src)
	}
	// The bound is the limit minus max(1/8, 256 MiB).
	if b, _ := memoryBound(Options{machineRoot: root}); b != 256<<20 {
		t.Fatalf("bound %d, want 256 MiB", b)
	}
	if b, _ := memoryBound(Options{machineRoot: root, MaxMemory: -1}); b != 0 {
		t.Fatalf("negative MaxMemory: bound %d", b)
	}
}

// TestGracefulStopAtMachineBound: a search under a machine whose cgroup
// allows less than the search needs stops with StopMaxMemory, Complete
// false, its counts and a hint, in BFS (compact and whole states) and DFS.
func TestGracefulStopAtMachineBound(t *testing.T) {
	root := t.TempDir()
	// 256 MiB + 1 MiB: a bound of 1 MiB of heap.
	writeFile(t, root, "sys/fs/cgroup/memory.max", "269484032\n")
	for _, opt := range []Options{{Workers: 2}, {Workers: 2, WholeStates: true}, {Mode: DepthFirst}} {
		opt.machineRoot = root
		r := Search[pt](&cgrid{grid: grid{N: 2000}}, opt)
		if r.Stop != StopMaxMemory || r.Complete || r.Err != nil || r.States == 0 || r.Transitions == 0 ||
			r.MemoryBound != 1<<20 || !strings.Contains(r.Hint, "--dfs") || !strings.Contains(r.MemoryFrom, "v2") {
			t.Fatalf("%v: stop %s complete %v err %v states %d bound %d hint %q", opt.Mode, r.Stop, r.Complete, r.Err, r.States, r.MemoryBound, r.Hint)
		}
	}
}
