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
// is 0 is, in bytes,
//
//	available = min over
//	    every cgroup memory limit L that applies to the process:
//	        L − max(0, U − RSS)
//	    and MemAvailable + RSS
//	bound = available − max(available/8, min(256 MiB, available/2))
//
// where
//
//   - the limits that apply are those of the process's own cgroup and of
//     every ancestor up to the root, named by /proc/self/cgroup: cgroup v1
//     (the line N:memory:/path; /sys/fs/cgroup/memory/<path>/
//     memory.limit_in_bytes, an ancestor's limit counting unless its
//     memory.use_hierarchy is 0) and cgroup v2 (the line 0::/path;
//     <mount>/<path>/memory.max, the mount being /sys/fs/cgroup or
//     /sys/fs/cgroup/unified, whichever holds cgroup.controllers). "max",
//     and v1's values from 2^60 up, mean no limit. A path missing under
//     the mount (a container that sees its own cgroup as the root) is
//     looked up by its trailing components; without /proc/self/cgroup the
//     roots of the hierarchies are read;
//   - U is the cgroup's usage, processes of descendant cgroups included:
//     memory.usage_in_bytes (v1) or memory.current (v2), less the inactive
//     file cache the kernel reclaims before it kills (memory.stat
//     total_inactive_file, v1, or inactive_file, v2); U − RSS is the
//     memory held by the cgroup's other processes, taken as 0 when U is
//     unreadable;
//   - RSS is this process's resident set (/proc/self/statm), and
//     MemAvailable /proc/meminfo's when the bound is computed (its
//     MemTotal on kernels without MemAvailable);
//   - the margin covers what the Go heap metric does not count (stacks,
//     the runtime, fragmentation, the rest of the process) and growth
//     between two samples.
//
// During the search, memGuard compares both the Go heap and the resident
// set against the bound.

// memoryMargin is the part of available bytes kept out of the bound.
func memoryMargin(available int64) int64 {
	return max(available/8, min(256<<20, available/2))
}

// machineMemory returns the memory available to the process in bytes and
// a description of where the figure comes from, read under root ("/" on a
// real machine), or 0 and "" when nothing is known. rss is the process's
// resident set in bytes (0 when unknown).
func machineMemory(root string, rss int64) (int64, string) {
	best, from := cgroupMemory(root, rss)
	if v, src := meminfoAvailable(root, rss); v > 0 && (best == 0 || v < best) {
		best, from = v, src
	}
	return best, from
}

// meminfoAvailable returns MemAvailable + rss from /proc/meminfo under
// root (MemTotal when MemAvailable is absent), in bytes, or 0.
func meminfoAvailable(root string, rss int64) (int64, string) {
	f, err := os.Open(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	var total, avail int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(fs[1], 10, 64)
		if err != nil || kb <= 0 {
			continue
		}
		switch fs[0] {
		case "MemTotal:":
			total = kb << 10
		case "MemAvailable:":
			avail = kb << 10
		}
	}
	switch {
	case avail > 0:
		return avail + rss, fmt.Sprintf("MemAvailable (%d MiB, /proc/meminfo) + this process's resident set (%d MiB)", avail>>20, rss>>20)
	case total > 0:
		return total, fmt.Sprintf("physical memory (MemTotal %d MiB, /proc/meminfo)", total>>20)
	}
	return 0, ""
}

// cgroupMemory returns the smallest of L − max(0, U − rss) over the cgroup
// memory limits that apply to the process (see above), in bytes, and its
// description, or 0 and "" when no limit applies.
func cgroupMemory(root string, rss int64) (int64, string) {
	v1, v2 := "/", "/"
	if b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup")); err == nil {
		for line := range strings.Lines(string(b)) {
			fs := strings.SplitN(strings.TrimSpace(line), ":", 3)
			if len(fs) != 3 {
				continue
			}
			switch {
			case fs[0] == "0" && fs[1] == "":
				v2 = fs[2]
			case containsField(fs[1], "memory"):
				v1 = fs[2]
			}
		}
	}
	var best int64
	var from string
	consider := func(v int64, src string) {
		if v > 0 && (best == 0 || v < best) {
			best, from = v, src
		}
	}
	mount := filepath.Join(root, "sys/fs/cgroup/memory")
	for _, d := range cgroupDirs(mount, v1) {
		if d.ancestor && strings.TrimSpace(readString(filepath.Join(d.dir, "memory.use_hierarchy"))) == "0" {
			continue
		}
		if lim, ok := readLimit(filepath.Join(d.dir, "memory.limit_in_bytes")); ok {
			others := cgroupOthers(d.dir, "memory.usage_in_bytes", "total_inactive_file", rss)
			consider(lim-others, limitFrom("v1", "memory.limit_in_bytes", d.name, lim, others))
		}
	}
	for _, m := range []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"} {
		mount := filepath.Join(root, m)
		if _, err := os.Stat(filepath.Join(mount, "cgroup.controllers")); err != nil {
			continue
		}
		for _, d := range cgroupDirs(mount, v2) {
			if lim, ok := readLimit(filepath.Join(d.dir, "memory.max")); ok {
				others := cgroupOthers(d.dir, "memory.current", "inactive_file", rss)
				consider(lim-others, limitFrom("v2", "memory.max", d.name, lim, others))
			}
		}
	}
	return best, from
}

func limitFrom(version, file, name string, lim, others int64) string {
	s := fmt.Sprintf("cgroup %s %s of %s (%d MiB", version, file, name, lim>>20)
	if others > 0 {
		s += fmt.Sprintf(", %d MiB of it held by other processes", others>>20)
	}
	return s + ")"
}

// containsField reports whether the comma-separated list has f.
func containsField(list, f string) bool {
	for x := range strings.SplitSeq(list, ",") {
		if x == f {
			return true
		}
	}
	return false
}

// cgroupDir is a directory of a cgroup hierarchy: the process's cgroup or
// (ancestor) one above it, and its path in the hierarchy.
type cgroupDir struct {
	dir, name string
	ancestor  bool
}

// cgroupDirs returns the directories of the cgroup at path (from
// /proc/self/cgroup) and of its ancestors, under the hierarchy mounted at
// mount, the process's own first; nil when mount is not a directory. When
// the path is not under mount, the longest trailing part of it that is
// stands for it.
func cgroupDirs(mount, path string) []cgroupDir {
	if st, err := os.Stat(mount); err != nil || !st.IsDir() {
		return nil
	}
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	for i := range parts {
		if strings.Contains(parts[i], "..") {
			parts = nil // not a path the kernel writes
			break
		}
	}
	for len(parts) > 0 {
		if st, err := os.Stat(filepath.Join(mount, filepath.Join(parts...))); err == nil && st.IsDir() {
			break
		}
		parts = parts[1:]
	}
	var ds []cgroupDir
	for n := len(parts); n >= 0; n-- {
		ds = append(ds, cgroupDir{
			dir:      filepath.Join(mount, filepath.Join(parts[:n]...)),
			name:     "/" + strings.Join(parts[:n], "/"),
			ancestor: n < len(parts),
		})
	}
	return ds
}

// cgroupOthers returns the bytes the cgroup in dir holds for processes
// other than this one: its usage (file usage) less the inactive file cache
// (memory.stat key stat) less rss, at least 0; 0 when the usage is
// unreadable.
func cgroupOthers(dir, usage, stat string, rss int64) int64 {
	u, err := strconv.ParseInt(strings.TrimSpace(readString(filepath.Join(dir, usage))), 10, 64)
	if err != nil || u <= 0 {
		return 0
	}
	for line := range strings.Lines(readString(filepath.Join(dir, "memory.stat"))) {
		fs := strings.Fields(line)
		if len(fs) == 2 && fs[0] == stat {
			if v, err := strconv.ParseInt(fs[1], 10, 64); err == nil && v > 0 {
				u -= v
			}
		}
	}
	return max(0, u-rss)
}

// readString returns the file's contents, or "" when it cannot be read.
func readString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
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

// MachineMemoryBound is the bound a search takes from the machine when
// Options.MaxMemory is 0, in bytes (0: unknown), and where it comes from
// (see the rule above). It reads the machine at each call: a caller that
// runs several searches, or sets the Go runtime's memory limit too, passes
// the figure on in Options.MaxMemory and Options.MemoryFrom so that they
// share one bound.
func MachineMemoryBound() (int64, string) { return memoryBound(Options{}) }

// memoryBound is the memory bound of a search under opt, in bytes, and its
// source: MaxMemory when positive, none (0) when negative, else the
// machine's available memory less the margin.
func memoryBound(opt Options) (int64, string) {
	switch {
	case opt.MaxMemory > 0:
		if opt.MemoryFrom != "" {
			return opt.MaxMemory, opt.MemoryFrom
		}
		return opt.MaxMemory, "Options.MaxMemory"
	case opt.MaxMemory < 0:
		return 0, ""
	}
	root := opt.machineRoot
	if root == "" {
		root = "/"
	}
	v, src := machineMemory(root, residentBytes(statmPath(root)))
	if v == 0 {
		return 0, ""
	}
	m := memoryMargin(v)
	return v - m, fmt.Sprintf("%s, less a margin of %d MiB", src, m>>20)
}

// memoryHint says what to try after a search stopped at its memory bound,
// and which measure passed it (g's record: the Go heap or the resident
// set, with the bytes about to be allocated).
func memoryHint(r *Result, g *memGuard) string {
	what, at, need := g.passedBy()
	h := fmt.Sprintf("the search stopped at its memory bound (%d MiB: %s) when its %s reached %d MiB", r.MemoryBound>>20, r.MemoryFrom, what, at>>20)
	if need > 0 {
		h = fmt.Sprintf("the search stopped at its memory bound (%d MiB: %s) when its %s (%d MiB) plus what the next level would allocate (%d MiB) passed it",
			r.MemoryBound>>20, r.MemoryFrom, what, at>>20, need>>20)
	}
	h += fmt.Sprintf(", after %d distinct states: "+
		"try a depth-first search (--dfs), a spill directory for the queue (--spill DIR), or smaller parameters", r.States)
	if r.Compact || r.Mode == DepthFirst {
		return h
	}
	return h + "; this model keeps whole states in the queue (it has no checker.Codec)"
}
