package query

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"github.com/cairn-kb/cairn/artifacts"
)

// watchMask is what a watched folder reports: anything that changes a
// file's bytes, size or times, or the folder's entries. Reads report
// nothing, so a session reading the artifacts never wakes itself.
const watchMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CREATE | syscall.IN_DELETE |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_ONLYDIR | syscall.IN_DONT_FOLLOW | syscall.IN_EXCL_UNLINK

// baseWatch tells a long-lived session whether anything Open reads may
// have changed since it last looked, so that a request whose base did not
// change reuses the last verdict instead of walking the base again. It
// watches, with inotify, the base's root and .cairn (their entries) and
// the trees of the folders Open walks (load.TakenFolders).
//
// Events are queued by the kernel as the change happens, before the
// writing call returns, and generation reads the queue without waiting:
// a change completed before a request began is always seen by it. A
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
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
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
	wd, err := syscall.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), watchMask)
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
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
		n, err := syscall.Read(w.fd, w.buf)
		if errors.Is(err, syscall.EAGAIN) {
			break
		}
		if errors.Is(err, syscall.EINTR) {
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
	for len(events) >= syscall.SizeofInotifyEvent {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&events[0]))
		size := syscall.SizeofInotifyEvent + int(ev.Len)
		if size > len(events) {
			return errors.New("a truncated inotify event")
		}
		events = events[size:]
		if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
			return errors.New("the inotify queue overflowed")
		}
		if d, ok := w.dirs[ev.Wd]; ok && ev.Mask&syscall.IN_IGNORED != 0 {
			delete(w.dirs, ev.Wd)
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
		syscall.Close(w.fd)
		w.fd, w.broken = -1, true
	}
}
