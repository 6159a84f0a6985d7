// SPDX-License-Identifier: Apache-2.0
// Package measure holds the clocks the client-go programs share (as
// benchmarks/suite/common/measure.hpp).
package measure

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var clockBase = time.Now()

// NowNs is monotonic time in nanoseconds (time.Since uses the monotonic reading).
func NowNs() int64 { return int64(time.Since(clockBase)) }

// CPUNs is the user plus system CPU time of the whole process (all threads).
func CPUNs() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

// ProcStatusKB reads a field of /proc/self/status in KiB (VmRSS, VmHWM); -1 when unavailable.
func ProcStatusKB(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				if v, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return v
				}
			}
		}
	}
	return -1
}
