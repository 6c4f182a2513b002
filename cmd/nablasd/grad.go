package main

import "io"

func cmdGrad(args []string, stdout, stderr io.Writer) error {
	return usagef("grad is not available yet in this build")
}

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	return usagef("plan is not available yet in this build")
}
