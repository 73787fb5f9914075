package meshio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"time"
)

// Every file drape reads goes through ReadFile or a confined dirFS: only
// regular files (after symbolic links are resolved) are read, and at most
// the size the file had when it was opened, so a device (/dev/zero), a
// FIFO or a file that grows cannot make a read unbounded or hang. Files a
// glTF names (buffers, images) are further confined to the glTF's folder
// and the folders below it (os.Root: no "..", no symbolic link out).

// ErrNotRegular marks a path that is a device, FIFO, socket or folder
// where drape wants a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside marks a file a glTF names outside the glTF's folder.
var ErrOutside = errors.New("outside the glTF's folder")

// ReadFile reads the regular file at path (see ErrNotRegular).
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, path)
}

// OpenFile opens the regular file at path for reading (see ErrNotRegular);
// the reader ends at the size the file had when it was opened.
func OpenFile(path string) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s): drape reads only regular files", ErrNotRegular, fileKind(fi.Mode()))}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return limitedFile{io.LimitReader(f, fi.Size()), f}, nil
}

type limitedFile struct {
	io.Reader
	f *os.File
}

func (l limitedFile) Close() error { return l.f.Close() }

// readRegular reads f, named name, when it is a regular file: at most its
// size at open.
func readRegular(f *os.File, name string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%s): drape reads only regular files", ErrNotRegular, fileKind(fi.Mode()))}
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()))
	if _, err := io.Copy(buf, io.LimitReader(f, fi.Size())); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// dirFS reads the regular files of one folder and the folders below it,
// refusing every name that leaves it. It is the fs.FS that resolves a
// glTF's buffers and images.
type dirFS struct{ dir string }

// ReadFile reads name (a slash-separated path relative to the folder).
func (d dirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrOutside}
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			// os.Root's "path escapes from parent": a symbolic link out
			return nil, &fs.PathError{Op: "read", Path: name, Err: ErrOutside}
		}
		return nil, err
	}
	defer f.Close()
	return readRegular(f, name)
}

// Open returns the file as read by ReadFile, held in memory.
func (d dirFS) Open(name string) (fs.File, error) {
	data, err := d.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), name: path.Base(name), size: int64(len(data))}, nil
}

// memFile is a read file as an fs.File.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size}, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
