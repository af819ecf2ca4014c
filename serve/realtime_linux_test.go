package serve

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSetRealtime runs SetRealtime in a child process (it changes the whole
// process): every thread, those started before and one started after, ends
// under SCHED_FIFO at the priority asked for, with GOMAXPROCS 1. Without the
// privilege, the error says what is needed.
func TestSetRealtime(t *testing.T) {
	if os.Getenv("SSEAUDIT_REALTIME_CHILD") == "1" {
		realtimeChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetRealtime$", "-test.v")
	cmd.Env = append(os.Environ(), "SSEAUDIT_REALTIME_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	switch {
	case strings.Contains(string(out), "REALTIME OK"):
	case strings.Contains(string(out), "REALTIME DENIED"):
		var lim unix.Rlimit
		if HasSysNice() || unix.Getrlimit(unix.RLIMIT_RTPRIO, &lim) == nil && lim.Cur >= 3 {
			t.Fatalf("denied with CAP_SYS_NICE or an RLIMIT_RTPRIO of 3 or more:\n%s", out)
		}
		t.Logf("not permitted here, as the error says:\n%s", out)
	default:
		t.Fatalf("child said neither:\n%s", out)
	}
}

func realtimeChild(t *testing.T) {
	if policy, _, ok := Realtime(); ok {
		t.Fatalf("the test process already runs under %s", policy)
	}
	// Threads of the process before: a few goroutines blocked in
	// system calls on threads of their own.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			runtime.LockOSThread()
			<-stop
		})
	}
	time.Sleep(10 * time.Millisecond)
	if err := SetRealtime(3); err != nil {
		if !strings.Contains(err.Error(), "CAP_SYS_NICE") || !strings.Contains(err.Error(), "RLIMIT_RTPRIO") {
			t.Fatalf("the error does not say what is needed: %v", err)
		}
		if os.Geteuid() == 0 && !strings.Contains(err.Error(), "root here lacks CAP_SYS_NICE") {
			t.Fatalf("root refused, yet the error says it needs root: %v", err)
		}
		if n := runtime.GOMAXPROCS(0); n == 1 && runtime.NumCPU() > 1 {
			t.Fatalf("GOMAXPROCS left at 1 after a refusal")
		}
		t.Log("REALTIME DENIED: " + err.Error())
		close(stop)
		wg.Wait()
		return
	}
	// A thread started after.
	started := make(chan struct{})
	wg.Go(func() {
		runtime.LockOSThread()
		close(started)
		<-stop
	})
	<-started
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS = %d, want 1", n)
	}
	tids, err := threads()
	if err != nil {
		t.Fatal(err)
	}
	if len(tids) < 6 {
		t.Errorf("%d threads, want at least the 5 locked ones and the main one", len(tids))
	}
	for _, tid := range tids {
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil {
			t.Fatalf("thread %d: %v", tid, err)
		}
		if attr.Policy != unix.SCHED_FIFO || attr.Priority != 3 {
			t.Errorf("thread %d: policy %d priority %d, want SCHED_FIFO (%d) 3", tid, attr.Policy, attr.Priority, unix.SCHED_FIFO)
		}
	}
	if policy, prio, ok := Realtime(); !ok || policy != "SCHED_FIFO" || prio != 3 {
		t.Errorf("Realtime() = %q %d %v, want SCHED_FIFO 3 true", policy, prio, ok)
	}
	close(stop)
	wg.Wait()
	if !t.Failed() {
		t.Log("REALTIME OK")
	}
}

// TestSetRealtimeWithoutSysNice: root without CAP_SYS_NICE (a container's,
// a user namespace's) is refused, and told so rather than that it needs
// root; GOMAXPROCS is given back.
func TestSetRealtimeWithoutSysNice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to drop CAP_SYS_NICE from")
	}
	sp, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv (util-linux)")
	}
	cmd := exec.Command(sp, "--bounding-set=-sys_nice", "--inh-caps=-sys_nice", os.Args[0], "-test.run=^TestSetRealtime$", "-test.v")
	cmd.Env = append(os.Environ(), "SSEAUDIT_REALTIME_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "REALTIME DENIED") || !strings.Contains(string(out), "root here lacks CAP_SYS_NICE") {
		t.Fatalf("root without CAP_SYS_NICE: %v\n%s", err, out)
	}
}

func TestSetRealtimeRange(t *testing.T) {
	for _, p := range []int{0, -1, 100} {
		if err := SetRealtime(p); err == nil || !strings.Contains(err.Error(), "want 1 to 99") {
			t.Errorf("SetRealtime(%d) = %v, want a range error", p, err)
		}
	}
}
