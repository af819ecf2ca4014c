package serve

import (
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// timerfdAlarm is a timerfd (timerfd_create(CLOCK_MONOTONIC)) set to an
// absolute time (TFD_TIMER_ABSTIME), which the kernel keeps with no timer
// slack, read through the runtime's network poller: the goroutine that
// waits holds no thread, and wakes as the timerfd becomes readable.
//
// Go's monotonic clock is CLOCK_MONOTONIC on Linux: the alarm's clock is
// Go's, since a base time whose CLOCK_MONOTONIC reading is taken beside
// it (to within the time of two clock_gettime calls).
//
// Should the timerfd fail (a seccomp filter, a kernel without it), the
// alarm falls back to Go's timers.
type timerfdAlarm struct {
	timers timerAlarm
	mono0  int64    // CLOCK_MONOTONIC at timers.t0, in ns
	f      *os.File // the timerfd, while the pacer runs
	fd     int      // f's (f.Fd would make f blocking)
	failed atomic.Bool
}

func newAlarm() alarm {
	a := &timerfdAlarm{timers: timerAlarm{kick: make(chan struct{}, 1)}}
	var t0, t1 unix.Timespec
	err0 := unix.ClockGettime(unix.CLOCK_MONOTONIC, &t0)
	a.timers.t0 = time.Now()
	err1 := unix.ClockGettime(unix.CLOCK_MONOTONIC, &t1)
	if err0 != nil || err1 != nil {
		a.failed.Store(true)
	}
	a.mono0 = t0.Nano() + (t1.Nano()-t0.Nano())/2
	return a
}

func (a *timerfdAlarm) now() time.Duration { return a.timers.now() }
func (a *timerfdAlarm) base() time.Time    { return a.timers.t0 }

func (a *timerfdAlarm) open() {
	if a.failed.Load() {
		return
	}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		a.failed.Store(true)
		return
	}
	a.f, a.fd = os.NewFile(uintptr(fd), "timerfd"), fd // non-blocking: read through the poller
}

func (a *timerfdAlarm) close() {
	if a.f != nil {
		a.f.Close()
		a.f = nil
	}
}

func (a *timerfdAlarm) set(at time.Duration) {
	a.timers.set(at)
	if a.failed.Load() || a.f == nil {
		return
	}
	v := unix.ItimerSpec{Value: unix.NsecToTimespec(a.mono0 + int64(at))}
	if v.Value.Sec == 0 && v.Value.Nsec == 0 {
		v.Value.Nsec = 1 // zero would disarm it
	}
	if unix.TimerfdSettime(a.fd, unix.TFD_TIMER_ABSTIME, &v, nil) != nil {
		a.failed.Store(true)
	}
}

func (a *timerfdAlarm) advance(at time.Duration) {
	if a.failed.Load() || a.f == nil {
		a.timers.advance(at)
		return
	}
	a.set(at)
	if a.failed.Load() {
		// The pacer's read of the timerfd ends now, and it waits on Go's
		// timers from then on.
		a.timers.advance(at)
		a.f.SetReadDeadline(time.Now())
	}
}

func (a *timerfdAlarm) wait() {
	if a.failed.Load() || a.f == nil {
		a.timers.wait()
		return
	}
	var n [8]byte // the count of expirations
	if _, err := a.f.Read(n[:]); err != nil {
		a.failed.Store(true)
	}
}
