package checker

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The memory bound a search takes from the machine when Options.MaxMemory
// is 0: the cgroup's memory limit when the process has one (cgroup v2
// memory.max, else v1 memory.limit_in_bytes), else the physical memory
// (/proc/meminfo MemTotal), minus a margin for what the Go heap metric does
// not count (stacks, the runtime, fragmentation, the rest of the process):
// an eighth of it, and at least 256 MiB.

// machineMemory returns the memory available to the process in bytes and
// where the figure comes from ("cgroup v2", "cgroup v1", "physical"), read
// under root ("/" on a real machine), or 0 when nothing is known.
func machineMemory(root string) (int64, string) {
	if v, ok := readLimit(filepath.Join(root, "sys/fs/cgroup/memory.max")); ok {
		return v, "cgroup v2 memory.max"
	}
	if v, ok := readLimit(filepath.Join(root, "sys/fs/cgroup/memory/memory.limit_in_bytes")); ok {
		return v, "cgroup v1 memory.limit_in_bytes"
	}
	f, err := os.Open(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fs[1], 10, 64)
			if err == nil && kb > 0 {
				return kb << 10, "physical memory (/proc/meminfo)"
			}
		}
	}
	return 0, ""
}

// readLimit reads a cgroup limit file: a byte count, or "max" (no limit).
// Values from 2^60 up are v1's way of saying no limit.
func readLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0, false
	}
	return v, true
}

// MachineMemoryBound is the heap bound a search takes from the machine
// when Options.MaxMemory is 0, in bytes (0: unknown), and its source.
func MachineMemoryBound() (int64, string) { return memoryBound(Options{}) }

// memoryBound is the heap bound of a search under opt: MaxMemory when
// positive, none when negative, else the machine's memory minus the margin.
func memoryBound(opt Options) (int64, string) {
	switch {
	case opt.MaxMemory > 0:
		return opt.MaxMemory, "Options.MaxMemory"
	case opt.MaxMemory < 0:
		return 0, ""
	}
	root := opt.machineRoot
	if root == "" {
		root = "/"
	}
	v, src := machineMemory(root)
	if v == 0 {
		return 0, ""
	}
	return v - max(v/8, 256<<20), src
}

// memoryHint says what to try after a search stopped at its memory bound.
func memoryHint(r *Result) string {
	h := fmt.Sprintf("the search stopped at its memory bound (%d MiB, from %s) after %d distinct states: "+
		"try a depth-first search (--dfs), a spill directory for the queue (--spill DIR), or smaller parameters",
		r.MemoryBound>>20, r.MemoryFrom, r.States)
	if r.Compact || r.Mode == DepthFirst {
		return h
	}
	return h + "; this model keeps whole states in the queue (it has no checker.Codec)"
}
