package query

import (
	"encoding/binary"
	"errors"
	"os"
	"path"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/cairn-kb/cairn/artifacts"
)

// watchMask is what a watched folder reports: anything that changes a
// file's bytes, size or times, or the folder's entries. Reads report
// nothing, so a session reading the artifacts never wakes itself.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// baseWatch tells a long-lived session whether anything Open reads may
// have changed since it last looked, so that a request whose base did not
// change reuses the last verdict instead of walking the base again. It
// watches, with inotify, the base's root and .cairn (their entries) and
// the trees of the folders Open walks (load.TakenFolders).
//
// Events are queued by the kernel as the change happens, before the
// writing call returns, and generation reads the queue without waiting:
// a change completed before a request began is always seen by it. That
// is why it reads inotify itself rather than through fsnotify, which
// reads the queue on a goroutine of its own and hands events over a
// channel: an event already queued may not have reached the channel when
// a request looks, and the request would answer from a verdict the change
// made stale. What the watch saves, measured on the PEPs base: the
// verdict a request reuses costs 33 ms to make again (BenchmarkOpen), twice
// a whole session request with the watch (17 ms, BenchmarkSession). A
// queue that overflowed, a watch that cannot be added (the user's watch
// limit) or a read that fails breaks the watch for good, and the session
// walks the base per request, as a process per question does.
type baseWatch struct {
	root string
	fd   int

	mu     sync.Mutex
	dirs   map[int32]string // base-relative folders ("" is the root), by watch descriptor
	byPath map[string]bool  // the same folders, by path
	gen    uint64           // counts the reads of the queue that found an event
	broken bool
	buf    []byte
}

// startWatch starts watching the base at root, nil where it cannot. A
// root reached through a link is watched where it is: watches never
// follow a link at the folder they name.
func startWatch(root string) *baseWatch {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	// inotify read here, not through fsnotify, for the guarantee above;
	// it spares a PEPs request 33 ms of Open (BenchmarkOpen).
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &baseWatch{root: root, fd: fd, dirs: map[int32]string{}, byPath: map[string]bool{}, buf: make([]byte, 64<<10)}
}

// cover watches the root and .cairn, and the trees of tops, where they
// are not watched yet; it reports whether it added a watch, since a
// folder watched only now may have changed before its watch was there.
// It runs after every walk, so a folder created in a watched tree (whose
// creation its parent reported, causing the walk) is watched from then
// on.
func (w *baseWatch) cover(tops []string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return false, errors.New("the watch is broken")
	}
	added := false
	for _, d := range []string{"", artifacts.Dir} {
		a, err := w.add(d)
		if err != nil {
			return false, w.fail(err)
		}
		added = added || a
	}
	for _, top := range tops {
		a, err := w.addTree(top)
		if err != nil {
			return false, w.fail(err)
		}
		added = added || a
	}
	return added, nil
}

// add watches one folder; a folder that does not exist (or is a link) is
// not watched, and its parent's watch reports its creation.
func (w *baseWatch) add(rel string) (bool, error) {
	if w.byPath[rel] {
		return false, nil
	}
	wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), watchMask)
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP):
		return false, nil
	case err != nil:
		return false, err
	}
	w.dirs[int32(wd)] = rel
	w.byPath[rel] = true
	return true, nil
}

// addTree watches rel and every folder below it, never through a link.
func (w *baseWatch) addTree(rel string) (bool, error) {
	added, err := w.add(rel)
	if err != nil || !w.byPath[rel] {
		return added, err
	}
	entries, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(rel)))
	if err != nil {
		// Gone since it was watched: the watch reports that.
		return added, nil
	}
	for _, e := range entries {
		if e.Type()&os.ModeType != os.ModeDir {
			continue
		}
		a, err := w.addTree(path.Join(rel, e.Name()))
		if err != nil {
			return added, err
		}
		added = added || a
	}
	return added, nil
}

// generation reads what the queue holds and returns the count of reads
// that found an event; false when the watch cannot be trusted.
func (w *baseWatch) generation() (uint64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.broken {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			w.fail(err)
			break
		}
		w.gen++
		if err := w.follow(w.buf[:n]); err != nil {
			w.fail(err)
		}
	}
	return w.gen, !w.broken
}

// follow takes one read's events: it forgets the folders whose watch
// ended. Folders created since are watched by the cover after the walk
// their creation causes.
func (w *baseWatch) follow(events []byte) error {
	// struct inotify_event: wd i32, mask u32, cookie u32, len u32, then
	// len bytes of name, in the machine's byte order.
	for len(events) >= unix.SizeofInotifyEvent {
		wd := int32(binary.NativeEndian.Uint32(events[0:]))
		mask := binary.NativeEndian.Uint32(events[4:])
		size := unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(events[12:]))
		if size > len(events) {
			return errors.New("a truncated inotify event")
		}
		events = events[size:]
		if mask&unix.IN_Q_OVERFLOW != 0 {
			return errors.New("the inotify queue overflowed")
		}
		if d, ok := w.dirs[wd]; ok && mask&unix.IN_IGNORED != 0 {
			delete(w.dirs, wd)
			delete(w.byPath, d)
		}
	}
	return nil
}

// fail breaks the watch for good and returns err.
func (w *baseWatch) fail(err error) error {
	w.broken = true
	return err
}

// close stops watching.
func (w *baseWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd, w.broken = -1, true
	}
}
