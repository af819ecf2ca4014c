//go:build !unix

package atomicfile

import "io/fs"

// newFileMode is the mode os.Create gives a new file.
func newFileMode() fs.FileMode { return 0o666 }
