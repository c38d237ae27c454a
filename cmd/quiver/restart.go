package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// errRestart is serve's answer when the server must start again on its
// data directory: a cluster member installed a snapshot from the leader,
// and its database was reopened under the frontends, the authentication
// service and the metrics, which hold the one they started with. serve
// has shut down gracefully (the member left the cluster cleanly) when
// it returns it.
var errRestart = errors.New("restart")

// restartSelf replaces the process with a new run of the same command
// line (same pid, arguments and environment), which opens what the data
// directory now holds. It returns only if that fails.
func restartSelf() int {
	exe, err := os.Executable()
	if err == nil {
		err = syscall.Exec(exe, os.Args, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "quiver serve: cannot restart after a snapshot install: %v (start it again)\n", err)
	return 1
}
