//go:build unix

package atomicfile

import (
	"io/fs"
	"syscall"
)

// umask is the process's file mode creation mask, read when the package is
// initialized (before any goroutine of the program's runs): reading it
// means setting it, so it is set back at once.
var umask = func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}()

// newFileMode is the mode os.Create gives a new file: 0666 less the umask.
func newFileMode() fs.FileMode { return 0o666 &^ umask }
