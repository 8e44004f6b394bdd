package main

import (
	"os/exec"
	"syscall"
)

// setChildAttrs makes the kernel kill a rank's process if ftcheck run
// dies first (it also exits when its stdin closes).
func setChildAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
