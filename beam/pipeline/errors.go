package pipeline

import (
	"errors"
	"fmt"
	"strings"
)

// A worker's error about the job's input (a bad row, a failed step)
// reaches the launcher inside the runner's report of the failed job,
// among stack traces and the runner's words. The workers mark it, and
// JobError finds it again.
const (
	errOpen  = "<<nablasd: "
	errClose = ">>"
)

// inputError marks err as the job's error for the launcher to report.
func inputError(err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), errOpen) {
		return err
	}
	return fmt.Errorf("%s%v%s", errOpen, err, errClose)
}

// JobError returns the workers' first marked error in a failed job's
// error, or err itself when there is none.
func JobError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	i := strings.Index(msg, errOpen)
	if i < 0 {
		return err
	}
	rest := msg[i+len(errOpen):]
	j := strings.Index(rest, errClose)
	if j < 0 {
		return err
	}
	return errors.New(rest[:j])
}
