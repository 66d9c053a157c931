package query

import (
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"
)

// folderFS reads the base's files as an os.Root does, but opens each file
// relative to a kept descriptor of its folder. Opening a file through the
// root walks its path a component at a time and readies the descriptor
// for the poller (eight system calls for wiki/x.md: two opens, a close,
// four fcntl, an epoll_ctl), about 1.1 ms of the fifty pages a pack at
// 100k records re-reads; here a file is an openat and one fcntl. Folders
// are opened through the root, so they cannot lead outside the base; the
// file itself is opened without following a symlink, and a symlink, or
// anything else this cannot open, is left to the root, which gives the
// answer (and the error) it always gave.
type folderFS struct {
	root fs.FS // the base's os.Root, as an fs.FS
	open func(dir string) (*os.File, error)

	mu      sync.Mutex
	folders map[string]*os.File // by folder path; nil for one the root would not open
}

// newFolderFS wraps root; Close closes the folders it kept.
func newFolderFS(root *os.Root) *folderFS {
	return &folderFS{root: root.FS(), open: root.Open, folders: map[string]*os.File{}}
}

func (d *folderFS) Open(name string) (fs.File, error) {
	dir, base := path.Split(name)
	if !fs.ValidPath(name) || dir == "" || base == "" {
		return d.root.Open(name)
	}
	folder := d.folder(dir[:len(dir)-1])
	if folder == nil {
		return d.root.Open(name)
	}
	rc, err := folder.SyscallConn()
	if err != nil {
		return d.root.Open(name)
	}
	fd := -1
	var openErr error
	if err := rc.Control(func(dirfd uintptr) {
		fd, openErr = syscall.Openat(int(dirfd), base, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NOCTTY, 0)
	}); err != nil || openErr != nil {
		return d.root.Open(name)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// folder is the kept descriptor of dir, opened through the root on first
// use, or nil when the root does not open it as a folder.
func (d *folderFS) folder(dir string) *os.File {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.folders[dir]; ok {
		return f
	}
	f, err := d.open(dir)
	if err == nil {
		if st, serr := f.Stat(); serr != nil || !st.IsDir() {
			f.Close()
			f, err = nil, fs.ErrInvalid
		}
	}
	if err != nil {
		f = nil
	}
	d.folders[dir] = f
	return f
}

// Close closes the kept folders.
func (d *folderFS) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for dir, f := range d.folders {
		if f != nil {
			f.Close()
		}
		delete(d.folders, dir)
	}
}
