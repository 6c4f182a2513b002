package jit

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// groupKiller is the shell that runs go build on Linux: on SIGTERM it
// kills its process group, go build and the compiler, linker and C
// compiler that go build started.
const groupKiller = `trap 'kill -KILL 0' TERM; "$0" "$@" & wait $!`

// run runs the go build command so that neither it nor the tools it
// starts outlive this process: under a shell that leads a process group
// of its own and that the kernel sends SIGTERM when the thread that
// started it exits (Pdeathsig). The thread is locked to this goroutine
// until the build has finished, so it exits only with the process; the
// shell then kills the group (groupKiller). Without /bin/sh, go build
// alone gets SIGKILL, and the tool it runs at that moment finishes on
// its own.
func run(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := os.Stat("/bin/sh"); err != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return cmd.Run()
	}
	sh := exec.Command("/bin/sh", append([]string{"-c", groupKiller, cmd.Path}, cmd.Args[1:]...)...)
	sh.Dir, sh.Env, sh.Stdout, sh.Stderr = cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return sh.Run()
}
