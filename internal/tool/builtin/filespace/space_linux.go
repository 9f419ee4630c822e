//go:build linux

package filespace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux the file tools open the resolved path with openat2(2) relative
// to a descriptor of the workspace root, with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS: the path has no symlinks by construction (Resolve
// resolved them all), so any symlink met during the open was put there
// after the check, and the open fails instead of following it. os.Root
// would follow a symlink that stays inside the root, which lets a command
// running meanwhile swap a checked folder for a link into .git.
//
// Writes hold the parent folder open the same way, create the temporary
// file and rename it over the target by names relative to that one
// descriptor, so neither step can be redirected elsewhere.
//
// Kernels before 5.6 have no openat2; there every open walks the path one
// name at a time with openat(2) and O_NOFOLLOW, which refuses symlinks
// just the same at the cost of a system call per name.

// resolveNoLinks keeps an openat2 below its directory and off symlinks.
const resolveNoLinks = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// spaceRoot is the workspace root held open for one call.
type spaceRoot struct {
	fd int // O_PATH descriptor of the workspace root
	// byName makes every open walk one name at a time: set when openat2
	// is missing (ENOSYS); tests set it to cover that path.
	byName bool
}

func openSpaceRoot(real string) (spaceRoot, error) {
	for {
		fd, err := unix.Open(real, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return spaceRoot{}, &fs.PathError{Op: "open", Path: real, Err: err}
		}
		return spaceRoot{fd: fd}, nil
	}
}

func (r *spaceRoot) close() error { return unix.Close(r.fd) }

// open opens rel (slash-separated, relative to the root, "." for the root)
// without following any symlink on the way or at its end. A symlink met
// gives ErrSwapped.
func (r *spaceRoot) open(rel string, flags int, mode uint32) (int, error) {
	flags |= unix.O_CLOEXEC
	if !r.byName {
		fd, err := openat2(r.fd, rel, flags, mode)
		switch err {
		case nil:
			return fd, nil
		case unix.ENOSYS:
			r.byName = true
		case unix.EPERM:
			// A seccomp filter may answer EPERM for a system call it does
			// not know; walking by name is as safe, and a real EPERM comes
			// back from it again.
		default:
			return -1, openError(rel, err)
		}
	}
	fd, err := r.openByName(rel, flags, mode)
	if err != nil {
		return -1, openError(rel, err)
	}
	return fd, nil
}

// openError words a failed open: ELOOP (a symlink refused) and EXDEV (an
// escape from the root refused) mean the path changed after it was checked.
func openError(rel string, err error) error {
	if err == unix.ELOOP || err == unix.EXDEV {
		err = ErrSwapped
	}
	return &fs.PathError{Op: "open", Path: rel, Err: err}
}

func openat2(dirfd int, name string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags), Resolve: resolveNoLinks}
	if flags&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(mode) // openat2 refuses a mode without them
	}
	// EAGAIN: a rename raced the lookup; the kernel asks for a retry.
	for tries := 0; ; tries++ {
		fd, err := unix.Openat2(dirfd, name, &how)
		if err == unix.EINTR || (err == unix.EAGAIN && tries < 8) {
			continue
		}
		return fd, err
	}
}

// openByName opens rel one name at a time, each folder with O_NOFOLLOW, so
// no symlink is followed anywhere on the path (the openat2 fallback).
func (r *spaceRoot) openByName(rel string, flags int, mode uint32) (int, error) {
	if rel == "" || rel == "." {
		return openat(r.fd, ".", flags)
	}
	names := strings.Split(rel, "/")
	dir := r.fd
	closeDir := func() {
		if dir != r.fd {
			unix.Close(dir)
		}
	}
	defer func() { closeDir() }()
	for _, name := range names[:len(names)-1] {
		fd, err := openName(dir, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		closeDir()
		dir = fd
	}
	return openName(dir, names[len(names)-1], flags, mode)
}

// openName opens the single name (no slash) in the folder dirfd without
// following a symlink: for one name, O_NOFOLLOW is all openat2's
// RESOLVE_NO_SYMLINKS would add. A symlink gives ELOOP.
func openName(dirfd int, name string, flags int, mode uint32) (int, error) {
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return -1, unix.EXDEV
	}
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOTDIR && flags&unix.O_DIRECTORY != 0 && isSymlinkAt(dirfd, name) {
			// O_PATH|O_NOFOLLOW on a symlink opens the link itself, which
			// O_DIRECTORY then refuses as "not a directory".
			err = unix.ELOOP
		}
		if err == nil && flags&unix.O_PATH != 0 {
			// O_PATH|O_NOFOLLOW opens a symlink itself rather than failing.
			var st unix.Stat_t
			if serr := unix.Fstat(fd, &st); serr != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
				unix.Close(fd)
				if serr == nil {
					serr = unix.ELOOP
				}
				return -1, serr
			}
		}
		return fd, err
	}
}

func isSymlinkAt(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// Stat returns what rel is, without following a symlink.
func (s *Space) Stat(rel string) (fs.FileInfo, error) {
	fd, err := s.at.open(rel, unix.O_PATH, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path.Base(rel))
	defer f.Close()
	return f.Stat()
}

// OpenRegular opens the regular file rel for reading. O_NONBLOCK: a FIFO
// that took the place of the file the caller checked must not block the
// open; it is refused as not regular.
func (s *Space) OpenRegular(rel string) (*os.File, error) {
	fd, err := s.at.open(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = ErrNotRegular
		}
		return nil, err
	}
	return f, nil
}

// OpenDir opens the folder rel for listing.
func (s *Space) OpenDir(rel string) (*os.File, error) {
	fd, err := s.at.open(rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// openWalkDir opens the folder rel as the start of a walk (walk_unix.go);
// the walk goes on one name at a time with O_NOFOLLOW.
func (s *Space) openWalkDir(rel string) (dirHandle, error) {
	f, err := s.OpenDir(rel)
	if err != nil {
		return nil, err
	}
	return &fdDir{f: f, fd: int(f.Fd())}, nil
}

// ReplaceFile writes data as the whole content of rel. A file with one
// name is replaced atomically: a temporary file in the same folder is
// written, synced and renamed over it, so a reader never sees half a
// file. A file with several names (hard links) is rewritten in place
// instead, so that every name still shows the new content. An existing
// file keeps its mode; a new one gets 0644 and any missing parent folders.
// created says whether the file did not exist before.
//
// read, when set, is the file as the caller read it. The file must still
// be that file, with that content, at the last moment before the new
// content lands, else nothing is written and the error is ErrChanged.
// Without read the file must stay as this call first found it (or stay
// absent). A write that lands on the old copy in the instant between that
// check and the rename is reported as errChangedWhileSaving.
//
// The parent folder is held open and every name is taken relative to it,
// without following symlinks, so the file can only land in the folder
// that was checked; the temporary file is removed on any failure.
func (s *Space) ReplaceFile(rel string, data []byte, read *State) (created bool, err error) {
	dir, base := path.Dir(rel), path.Base(rel)
	dirfd, err := s.at.open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if errors.Is(err, fs.ErrNotExist) && dir != "." && read == nil {
		dirfd, err = s.at.mkdirAll(dir)
	}
	if err != nil {
		if read != nil && errors.Is(err, fs.ErrNotExist) {
			return false, ErrChanged
		}
		return false, err
	}
	defer unix.Close(dirfd)

	old, found, err := openTarget(dirfd, rel, base)
	if err != nil {
		return false, err
	}
	created = old == nil
	mode := uint32(0o644)
	switch {
	case created && read != nil:
		return false, ErrChanged
	case created:
	case read != nil && !read.SameFile(found.info):
		old.Close()
		return false, ErrChanged
	default:
		defer old.Close()
		mode = uint32(found.info.Mode().Perm())
		if read == nil {
			read = &found
		}
		if LinkCount(found.info) > 1 {
			return false, writeInPlace(dirfd, base, data, *read)
		}
	}

	tmp, err := writeTemp(dirfd, base, data, mode)
	if err != nil {
		return false, err
	}
	if created {
		err = renameNew(dirfd, tmp, base)
	} else {
		err = renameChecked(dirfd, tmp, base, old, *read)
	}
	if err != nil && !errors.Is(err, errChangedWhileSaving) && !errors.Is(err, errOpenForWriting) {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return false, err
	}
	// Sync the folder so the rename itself survives a crash.
	_ = unix.Fsync(dirfd)
	return created, err
}

// openTarget opens the file base in dirfd as an O_PATH handle, which
// fstat can still query after the name points elsewhere. A missing file
// gives a nil handle; a symlink, folder or special file is an error.
func openTarget(dirfd int, rel, base string) (*os.File, State, error) {
	fd, err := openName(dirfd, base, unix.O_PATH, 0)
	switch {
	case err == unix.ENOENT:
		return nil, State{}, nil
	case err == unix.ELOOP:
		return nil, State{}, &fs.PathError{Op: "write", Path: rel, Err: ErrSwapped}
	case err != nil:
		return nil, State{}, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	fi, err := f.Stat()
	switch {
	case err != nil:
	case fi.IsDir():
		err = fmt.Errorf("%s is a folder", rel)
	case !fi.Mode().IsRegular():
		err = &fs.PathError{Op: "write", Path: rel, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, State{}, err
	}
	return f, StateOf(fi), nil
}

// writeTemp writes data to a fresh temporary file beside base, synced and
// closed, and returns its name.
func writeTemp(dirfd int, base string, data []byte, mode uint32) (string, error) {
	tmp, err := tempName(base)
	if err != nil {
		return "", err
	}
	fd, err := openName(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w", err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	step, err := "write", error(nil)
	if _, err = f.Write(data); err == nil {
		if step, err = "chmod", f.Chmod(fs.FileMode(mode)); err == nil {
			step, err = "sync", f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		step, err = "close", cerr
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return "", fmt.Errorf("%s: %w", step, err)
	}
	return tmp, nil
}

// renameNew moves tmp to base only if base still does not exist: a file
// created meanwhile by someone else is not replaced.
func renameNew(dirfd int, tmp, base string) error {
	err := unix.Renameat2(dirfd, tmp, dirfd, base, unix.RENAME_NOREPLACE)
	switch err {
	case nil:
		return nil
	case unix.EEXIST:
		return ErrChanged
	case unix.EINVAL, unix.ENOSYS:
		// The filesystem cannot refuse to replace; check, then rename.
		var st unix.Stat_t
		if unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			return ErrChanged
		}
		err = unix.Renameat(dirfd, tmp, dirfd, base)
	}
	if err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	return nil
}

// renameChecked moves tmp over base after a last check that base is still
// the file want describes, and then makes sure no other program wrote to
// the replaced copy in between.
//
// The check holds a read lease on the file where the kernel allows one
// (the file is ours, and nobody has it open for writing): while it is
// held, another program's open of the file for writing waits, and the
// lease records that it was asked for. That closes the gap a plain check
// leaves, where a program that opened the file just before the rename
// writes just after it, into the copy the rename dropped.
func renameChecked(dirfd int, tmp, base string, old *os.File, want State) error {
	fd, err := openName(dirfd, base, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ELOOP {
			return ErrChanged
		}
		return fmt.Errorf("check %s before writing: %w", base, err)
	}
	cur := os.NewFile(uintptr(fd), base)
	defer cur.Close()
	leased, busy := takeReadLease(fd)
	if leased {
		defer unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
	}
	if err := checkOpen(cur, want); err != nil {
		return err
	}
	checked, err := old.Stat()
	if err != nil || !want.SameFile(checked) || (leased && leaseBroken(fd)) {
		// A broken lease: another program is opening the file to write
		// to it. Refusing now loses nothing.
		return ErrChanged
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, base); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	if leased && leaseBroken(fd) {
		return errChangedWhileSaving
	}
	if after, err := old.Stat(); err != nil || !want.SameFile(after) {
		return errChangedWhileSaving
	}
	if busy {
		return errOpenForWriting
	}
	return nil
}

// leaseBroken reports whether someone asked for the read lease on fd to
// be given up, which an open of the file for writing does.
func leaseBroken(fd int) bool {
	l, err := unix.FcntlInt(uintptr(fd), unix.F_GETLEASE, 0)
	return err != nil || l != unix.F_RDLCK
}

// takeReadLease tries to take a read lease on fd. busy says it could not
// because another program has the file open for writing; a short-lived
// open (another writer appending a line) is waited out for a moment.
func takeReadLease(fd int) (leased, busy bool) {
	for try := 0; ; try++ {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK)
		switch {
		case err == nil:
			return true, false
		case err != unix.EAGAIN:
			// Not our file, or a filesystem without leases: the checks
			// around the rename are all there is.
			return false, false
		case try == 20:
			return false, true
		}
		time.Sleep(time.Millisecond)
	}
}

// writeInPlace rewrites the file base through its own inode, for a file
// with several hard links that a rename would split. It is not atomic: a
// crash midway leaves a mix of old and new bytes, which is the price of
// keeping the links.
func writeInPlace(dirfd int, base string, data []byte, want State) error {
	fd, err := openName(dirfd, base, unix.O_RDWR|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ELOOP {
			return ErrChanged
		}
		return &fs.PathError{Op: "open", Path: base, Err: err}
	}
	f := os.NewFile(uintptr(fd), base)
	defer f.Close()
	if err := checkOpen(f, want); err != nil {
		return err
	}
	return overwrite(f, data)
}

// mkdirAll makes the folder rel and any missing parents, one name at a
// time, each opened without following a symlink before the next is made
// in it, and returns the last one open.
func (r *spaceRoot) mkdirAll(rel string) (int, error) {
	dir := r.fd
	for name := range strings.SplitSeq(rel, "/") {
		fd, err := openName(dir, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err == unix.ENOENT {
			if err = unix.Mkdirat(dir, name, 0o755); err == nil || err == unix.EEXIST {
				fd, err = openName(dir, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			}
		}
		if dir != r.fd {
			unix.Close(dir)
		}
		if err != nil {
			return -1, fmt.Errorf("create folder %s: %w", rel, openError(name, err))
		}
		dir = fd
	}
	return dir, nil
}
