package load

import (
	"golang.org/x/sys/unix"
)

// beneath opens files below a folder with openat2 and RESOLVE_BENEATH:
// one system call resolves the whole path and refuses one that leaves the
// folder, as os.Root would, through "..", an absolute path or a link.
type beneath struct {
	fd int
}

// openBeneath opens dir for confined opens, or returns nil where openat2
// is missing (a kernel before 5.6) or refused (a sandbox's filter).
func openBeneath(dir string) *beneath {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	probe, err := unix.Openat2(fd, ".", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveBeneath})
	if err != nil {
		unix.Close(fd)
		return nil
	}
	unix.Close(probe)
	return &beneath{fd: fd}
}

const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

func (b *beneath) close() {
	if b != nil {
		unix.Close(b.fd)
	}
}

// readCapped reads name whole under limit: open, fstat, read, close. It
// opens without blocking, so a named pipe is refused by its stat rather
// than waited on. Anything but a regular file read to its end leaves the
// read to the os.Root way (done false), which says why in its own words;
// a file over limit is refused here, unread.
func (b *beneath) readCapped(name string, limit int64) (data []byte, done bool, err error) {
	fd, err := unix.Openat2(b.fd, name, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY, Resolve: resolveBeneath})
	if err != nil {
		return nil, false, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false, nil
	}
	if st.Size > limit {
		return nil, true, &tooLargeError{size: st.Size, limit: limit}
	}
	// One byte more than stat said shows a file that grew since.
	data = make([]byte, 0, st.Size+1)
	for {
		if int64(len(data)) > limit {
			return nil, true, &tooLargeError{size: -1, limit: limit}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := unix.Read(fd, data[len(data):min(cap(data), int(limit)+1)])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, false, nil
		case n == 0:
			return data, true, nil
		}
		data = data[:len(data)+n]
	}
}
