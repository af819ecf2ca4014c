package serve

import (
	"math"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

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
// Even so, the machine wakes late: a thread asleep on this VM wakes a
// median of 120 µs after its timerfd goes off when the machine is idle
// (its CPU has to come out of the hypervisor's idle), a few µs when it is
// busy. So the alarm is armed early, by the recent wakes' lateness (see
// early), and wait spins the rest of the way on the clock: it costs only
// the difference between the lateness foreseen and the one met.
//
// Should the timerfd fail (a seccomp filter, a kernel without it), the
// alarm falls back to Go's timers.
type timerfdAlarm struct {
	timers timerAlarm
	mono0  int64    // CLOCK_MONOTONIC at timers.t0, in ns
	f      *os.File // the timerfd, while the pacer runs
	fd     int      // f's (f.Fd would make f blocking)
	rc     syscall.RawConn
	failed atomic.Bool
	early  early
	armed  atomic.Int64 // the time the timerfd is armed for, or -1 if not
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
	if rc, err := a.f.SyscallConn(); err == nil {
		a.rc = rc
	}
}

func (a *timerfdAlarm) close() {
	if a.f != nil {
		a.f.Close()
		a.f, a.rc = nil, nil
	}
}

func (a *timerfdAlarm) set(at time.Duration) { a.arm(at, false) }

// arm arms the timerfd early (by early) for at. When that time has passed,
// it leaves the timerfd unarmed and wait spins, unless the pacer already
// waits on it (an advance): then it arms it for at once.
func (a *timerfdAlarm) arm(at time.Duration, waited bool) {
	a.timers.set(at)
	if a.failed.Load() || a.f == nil {
		return
	}
	arm := at - a.early.by()
	if now := a.now(); arm <= now {
		if !waited {
			a.armed.Store(-1)
			return
		}
		// Armed for a time past, the timerfd goes off at once: the wake's
		// lateness counts from now, not from that time (else the margin
		// would feed on itself).
		arm = now
	}
	a.armed.Store(int64(arm))
	abs := a.mono0 + int64(arm)
	if abs < a.mono0 { // past 2^63-1 ns (a due time centuries ahead): as good as never
		abs = math.MaxInt64
	}
	v := unix.ItimerSpec{Value: unix.NsecToTimespec(abs)}
	if v.Value.Sec == 0 && v.Value.Nsec == 0 {
		v.Value.Nsec = 1 // zero would disarm it
	}
	// Raw, as the stream's writes are (see stampConn.Write): it never
	// blocks.
	if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(a.fd), unix.TFD_TIMER_ABSTIME, uintptr(unsafe.Pointer(&v)), 0, 0, 0); e != 0 {
		a.failed.Store(true)
	}
}

func (a *timerfdAlarm) advance(at time.Duration) {
	if a.failed.Load() || a.f == nil {
		a.timers.advance(at)
		return
	}
	a.arm(at, true)
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
	if a.armed.Load() >= 0 {
		if !a.read() {
			a.failed.Store(true)
			return
		}
		now := a.now()
		a.early.woke(now-time.Duration(a.armed.Load()), now)
	}
	// The rest of the way on the clock; Gosched lets the goroutines of
	// this thread run meanwhile. An advance lowers timers.at.
	for a.now() < time.Duration(a.timers.at.Load()) {
		runtime.Gosched()
	}
}

// read waits until the timerfd goes off and reads its count of
// expirations, with read(2) made raw (it never blocks: EAGAIN, and the
// poller waits), so that the wake does not wake the runtime's sysmon (see
// stampConn.Write). It reports whether it could.
func (a *timerfdAlarm) read() bool {
	if a.rc == nil {
		return false
	}
	var n [8]byte
	var e unix.Errno
	err := a.rc.Read(func(fd uintptr) bool {
		for {
			_, _, e = unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&n[0])), uintptr(len(n)))
			if e != unix.EINTR {
				return e != unix.EAGAIN
			}
		}
	})
	return err == nil && e == 0
}

// early is how much before its due time the alarm is armed: the 90th
// percentile of the last wakes' lateness (how long after the timerfd went
// off the pacer ran), capped at maxEarly so a machine that stalls for
// milliseconds is not answered with milliseconds of spinning, and at
// spinShare of the time between wakes, so that the spinning costs at most
// that share of a core however many streams are due (at 64 streams, about
// 3,200 wakes a second, the cap is about 30 µs; at 1 stream it is maxEarly).
//
// Only the pacer calls woke; by is called by advance too.
type early struct {
	late   [64]time.Duration // a ring of the last wakes' lateness
	at     [64]time.Duration // and of their times
	n      int               // wakes seen
	sorted [64]time.Duration
	margin atomic.Int64
}

const (
	maxEarly  = 400 * time.Microsecond
	spinShare = 10 // the margin is at most 1/spinShare of the mean time between wakes
)

func (e *early) by() time.Duration { return time.Duration(e.margin.Load()) }

// woke records a wake at now, late after the timerfd's time.
func (e *early) woke(late, now time.Duration) {
	i := e.n % len(e.late)
	e.late[i], e.at[i] = max(late, 0), now
	e.n++
	k := min(e.n, len(e.late))
	s := e.sorted[:k]
	copy(s, e.late[:k])
	slices.Sort(s)
	limit := maxEarly
	if k > 1 {
		oldest := e.at[e.n%len(e.late)]
		if k < len(e.late) {
			oldest = e.at[0]
		}
		limit = min(limit, (now-oldest)/time.Duration(k-1)/spinShare)
	}
	e.margin.Store(int64(min(s[k*9/10], max(limit, 0))))
}
