//go:build linux

// Package measure times a command as a whole process, for the benchmark
// drivers under bench/: wall and CPU time and peak resident set of each
// run, and the median of a figure over the runs. Peak RSS comes from
// getrusage, in kilobytes on Linux, so the package builds on Linux only.
package measure

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// Run is what one run of a command took.
type Run struct {
	Wall, CPU time.Duration // CPU is user + system time
	RSS       int64         // peak resident set, bytes
}

// Runs are the runs of one command.
type Runs []Run

// Command runs name with args once, its output discarded, and records what
// it took. An exit code in okCodes is as good as 0; any other failure is an
// error with the command's stderr.
func (rs *Runs) Command(okCodes []int, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && slices.Contains(okCodes, exit.ExitCode())) {
		return fmt.Errorf("%s %v: %v\n%s", name, args, err, stderr.Bytes())
	}
	r := Run{Wall: wall, CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.RSS = usage.Maxrss * 1024 // kilobytes on Linux
	}
	*rs = append(*rs, r)
	return nil
}

// Wall is a run's wall time, for Median.
func Wall(r Run) time.Duration { return r.Wall }

// CPU is a run's CPU time, for Median.
func CPU(r Run) time.Duration { return r.CPU }

// Median returns the median of one figure over the runs.
func (rs Runs) Median(of func(Run) time.Duration) time.Duration {
	values := make([]time.Duration, len(rs))
	for i, r := range rs {
		values[i] = of(r)
	}
	slices.Sort(values)
	return values[len(values)/2]
}

// PeakRSS returns the largest peak resident set of the runs, in bytes.
func (rs Runs) PeakRSS() int64 {
	var peak int64
	for _, r := range rs {
		peak = max(peak, r.RSS)
	}
	return peak
}

// MB is n bytes in mebibytes.
func MB(n int64) float64 { return float64(n) / (1 << 20) }
