//go:build unix

package main

import (
	"runtime"
	"syscall"
)

// peakRSSMiB is the process's peak resident set in MiB (getrusage
// ru_maxrss: KiB on Linux, bytes on Darwin), or 0 if unknown.
func peakRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}
