package migrate

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback starts writing out n bytes of f from off without waiting
// for them; a failure is left for the final sync to report.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
