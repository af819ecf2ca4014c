package serve

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futexSleeper sleeps on a thread of its own until an absolute
// CLOCK_MONOTONIC deadline: FUTEX_WAIT_BITSET takes its deadline as
// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) does, and can be woken
// early by a stream that starts with a write due before it (a sleep in
// clock_nanosleep could not be). The thread's timer slack is set to 1 ns
// while the pacer owns it: the kernel's default lets a sleep end up to
// 50 µs late.
//
// Should the futex fail (a seccomp filter, a kernel without it), the
// sleeper falls back to Go's timers.
type futexSleeper struct {
	timers timerSleeper
	mono0  int64         // CLOCK_MONOTONIC at timers.t0, in ns
	word   atomic.Uint32 // the futex word: a count of wakes
	failed atomic.Bool   // the futex failed: Go's timers from then on
}

// Linux's futex operations (linux/futex.h), which x/sys/unix does not
// name.
const (
	futexWake           = 1
	futexWaitBitset     = 9
	futexPrivateFlag    = 128
	futexBitsetMatchAny = 0xffffffff
)

func newSleeper() sleeper {
	s := &futexSleeper{timers: timerSleeper{kick: make(chan struct{}, 1)}}
	var a, b unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &a) != nil {
		s.timers.t0 = time.Now()
		s.failed.Store(true)
		return s
	}
	s.timers.t0 = time.Now()
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &b) != nil {
		s.failed.Store(true)
		return s
	}
	s.mono0 = (a.Nano() + b.Nano()) / 2
	return s
}

func (s *futexSleeper) now() time.Duration { return s.timers.now() }
func (s *futexSleeper) base() time.Time    { return s.timers.t0 }

func (s *futexSleeper) enter() {
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
}

func (s *futexSleeper) leave() {
	unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) // back to the thread's default
	runtime.UnlockOSThread()
}

func (s *futexSleeper) token() uint32 { return s.word.Load() }

func (s *futexSleeper) sleep(until time.Duration, tok uint32) {
	if s.failed.Load() {
		s.timers.sleep(until, tok)
		return
	}
	ts := unix.NsecToTimespec(s.mono0 + int64(until))
	_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&s.word)), futexWaitBitset|futexPrivateFlag,
		uintptr(tok), uintptr(unsafe.Pointer(&ts)), 0, futexBitsetMatchAny)
	switch errno {
	case 0, unix.ETIMEDOUT, unix.EAGAIN, unix.EINTR:
	default:
		s.failed.Store(true)
	}
}

func (s *futexSleeper) wake() {
	s.word.Add(1)
	s.timers.wake()
	if !s.failed.Load() {
		unix.Syscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&s.word)), futexWake|futexPrivateFlag, 1)
	}
}
