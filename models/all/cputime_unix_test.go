//go:build unix

package all

import "syscall"

// cpuTime is the CPU time (user and system, seconds) the process has used
// so far, every thread included.
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
