package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/nablasd/nablasd/bench"
)

// A variant is one implementation of a case's gradient: the hand-written
// loop, the compiled kernel or the generated Go.
type variant struct {
	name string
	run  func()
	// ns holds the ns per run of each round, cpu the processor time
	// (all the process's threads, getrusage) per run of each round in ns:
	// for the threads table, where two goroutines on a busy machine may
	// take the processor time of two and the wall time of one.
	ns, cpu []float64
}

// timeRounds times the variants in rounds: every round times each variant
// for at least d, one after the other, so that the variants of a round
// see the same machine. vs[0] must be the hand-written loop, the
// reference of the ratios; it is timed in the middle of every round,
// between the others, whose order alternates from round to round
// (compiled, hand, generated; then generated, hand, compiled; without a
// generated kernel: compiled, hand; then hand, compiled), so that each
// ratio pairs two measurements taken back to back and neither side is
// always first.
//
// Rounds are short (-benchtime 5ms by default) and many (-rounds 81):
// on a shared machine other work comes and goes within a second, and two
// measurements 5 ms apart see the same machine far more often than two
// 200 ms apart. 81 rounds of 5 ms take the time 41 of 10 ms took and give
// the median twice the samples: the chunked A/B comparisons that decided
// this project's changes, 5 ms chunks alternating over 4-8 s, agreed
// with themselves within a few per cent where single 41-round reports
// put one cell a run past a target and a different one the next. The
// set stops early, after minRounds rounds, once it has run for budget
// (-budget), so that kernels of a tenth of a second or more, a round of
// which takes seconds, do not take minutes.
func timeRounds(vs []*variant, rounds int, d time.Duration) {
	timeRoundsWithin(vs, rounds, d, budget)
}

// timeRoundsWithin is timeRounds with the budget given.
func timeRoundsWithin(vs []*variant, rounds int, d, budget time.Duration) {
	start := time.Now()
	batch := make([]int, len(vs))
	for i, v := range vs {
		batch[i] = calibrate(v.run, d)
	}
	for r := range rounds {
		if r >= minRounds && time.Since(start) > budget {
			return
		}
		for _, i := range roundOrder(len(vs), r) {
			ns, cpu := timeFor(vs[i].run, d, batch[i])
			vs[i].ns, vs[i].cpu = append(vs[i].ns, ns), append(vs[i].cpu, cpu)
		}
	}
}

// budget is the time after which timeRounds stops starting rounds (the
// -budget flag), and minRounds the rounds it runs in any case.
var budget = 15 * time.Second

const minRounds = 5

// roundOrder returns the order of n variants in round r: variant 0 in the
// middle, the others around it, reversed in odd rounds.
func roundOrder(n, r int) []int {
	order := make([]int, 0, n)
	for i := 1; i < n; i++ {
		order = append(order, i)
	}
	if r%2 == 1 {
		slices.Reverse(order)
	}
	return slices.Insert(order, (len(order)+1-r%2)/2, 0)
}

// calibrate runs f until it has run for a millisecond (at least once, so
// it is also the variant's warm-up) and returns how many runs take about
// a tenth of d: the batch between two readings of the clock in timeFor.
func calibrate(f func(), d time.Duration) int {
	n := 1
	for {
		start := time.Now()
		for range n {
			f()
		}
		el := time.Since(start)
		if el >= time.Millisecond || n >= 1<<30 {
			per := float64(el) / float64(n)
			return max(1, int(float64(d)/10/per))
		}
		n *= 4
	}
}

// timeFor runs f in batches of batch runs until d has passed and returns
// the wall time and the process's processor time per run, in ns.
func timeFor(f func(), d time.Duration, batch int) (ns, cpu float64) {
	n := 0
	start, cpu0 := time.Now(), bench.ProcessCPU()
	for {
		for range batch {
			f()
		}
		n += batch
		if el := time.Since(start); el >= d {
			return float64(el.Nanoseconds()) / float64(n), float64(bench.ProcessCPU()-cpu0) / float64(n)
		}
	}
}

// ratios returns the per-round ratios a[r] / b[r].
func ratios(a, b []float64) []float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return r
}

// median returns the median of xs (the mean of the middle two for an even
// count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratioCell formats per-round ratios as their median and, for more than
// one round, their range: "1.52 1.48–1.60".
func ratioCell(rs []float64) string {
	if len(rs) == 0 {
		return "-"
	}
	if len(rs) == 1 {
		return fmt.Sprintf("%.2f", rs[0])
	}
	return fmt.Sprintf("%.2f %.2f–%.2f", median(rs), slices.Min(rs), slices.Max(rs))
}

// usCell formats a time in ns as µs with three significant digits or
// more.
func usCell(ns float64) string {
	us := ns / 1e3
	switch {
	case us < 10:
		return fmt.Sprintf("%.2f", us)
	case us < 100:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.0f", us)
}
