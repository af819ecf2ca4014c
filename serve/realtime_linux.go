package serve

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// SetRealtime puts every thread of the process under the real-time policy
// SCHED_FIFO at priority prio (1 to 99), and runs Go code on one thread at
// a time (GOMAXPROCS 1), as Realtime does.
//
// At normal priority the pacer waits for the scheduler whenever a client
// on the same machine holds the CPUs: a thread that does nothing but wake
// at set times is a millisecond late at P99 while 64 aiohttp clients run
// on 2 cores (docs/performance.md). A real-time thread preempts them.
//
// Threads started later inherit the policy from the thread that starts
// them. Needs root, CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least prio.
func SetRealtime(prio int) error {
	if prio < 1 || prio > 99 {
		return fmt.Errorf("real-time priority %d: want 1 to 99", prio)
	}
	// One P before any thread turns real-time: two real-time threads
	// could otherwise hold both cores of a small machine at once. Given
	// back if no thread could be set.
	procs := runtime.GOMAXPROCS(1)
	set, err := setFIFO(prio)
	if err != nil && set == 0 {
		runtime.GOMAXPROCS(procs)
	}
	return err
}

// setFIFO sets every thread of the process under SCHED_FIFO at prio, and
// says how many it set, whether or not it failed.
func setFIFO(prio int) (set int, err error) {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
	done := map[int]bool{}
	for {
		tids, err := threads()
		if err != nil {
			return len(done), fmt.Errorf("real-time priority: %w", err)
		}
		before := len(done)
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
				if errors.Is(err, unix.ESRCH) { // the thread ended meanwhile
					continue
				}
				if errors.Is(err, unix.EPERM) {
					return len(done), fmt.Errorf("real-time priority (SCHED_FIFO %d): %w: %s", prio, err, needs(prio))
				}
				return len(done), fmt.Errorf("real-time priority (SCHED_FIFO %d): thread %d: %w", prio, tid, err)
			}
			done[tid] = true
		}
		if len(done) == before { // no thread started while the others were set
			return len(done), nil
		}
	}
}

// needs says what SCHED_FIFO at prio needs, to a process refused it. Root
// without CAP_SYS_NICE is refused too: in a container or a user namespace.
func needs(prio int) string {
	if os.Geteuid() == 0 && !HasSysNice() {
		return fmt.Sprintf("root here lacks CAP_SYS_NICE (a container or a user namespace: docker run --cap-add SYS_NICE), or an RLIMIT_RTPRIO of %d or more (ulimit -r)", prio)
	}
	return fmt.Sprintf("it needs root, CAP_SYS_NICE (setcap cap_sys_nice+ep on the binary) or an RLIMIT_RTPRIO of %d or more (ulimit -r)", prio)
}

// HasSysNice reports whether the process holds CAP_SYS_NICE (in its
// effective set, /proc/self/status's CapEff).
func HasSysNice() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && caps&(1<<unix.CAP_SYS_NICE) != 0
		}
	}
	return false
}

// threads lists the process's threads.
func threads() ([]int, error) {
	d, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(d))
	for _, e := range d {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// Realtime reports the real-time policy the calling thread runs under
// (SCHED_FIFO or SCHED_RR, as chrt sets it) and its priority, and ok false
// at a normal policy. When ok, it sets GOMAXPROCS to 1, as SetRealtime does.
func Realtime() (policy string, prio int, ok bool) {
	attr, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return "", 0, false
	}
	switch attr.Policy {
	case unix.SCHED_FIFO:
		policy = "SCHED_FIFO"
	case unix.SCHED_RR:
		policy = "SCHED_RR"
	default:
		return "", 0, false
	}
	runtime.GOMAXPROCS(1)
	return policy, int(attr.Priority), true
}
