//go:build !linux

package jit

import "os/exec"

// run runs the go build command. Only Linux can tie its life to this
// process's (Pdeathsig): elsewhere a build under way when the process
// ends runs to its end, and its plugin is published or its directory
// swept (sweep) as any other.
func run(cmd *exec.Cmd) error { return cmd.Run() }
