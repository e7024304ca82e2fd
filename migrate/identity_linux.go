package migrate

import (
	"os"
	"syscall"
)

// identity is what dsh compares to tell that a file is unchanged: device,
// inode, size and the modification and change times in nanoseconds.
type identity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

func identityOf(info os.FileInfo) *identity {
	id := &identity{size: info.Size(), mtime: info.ModTime().UnixNano()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
		id.ctime = st.Ctim.Nano()
	}
	return id
}
