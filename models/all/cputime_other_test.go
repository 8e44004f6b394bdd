//go:build !unix

package all

// cpuTime is 0 where the platform has no getrusage: the CPU-time metrics
// are then left out.
func cpuTime() float64 { return 0 }
