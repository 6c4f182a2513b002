package jit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Notes are small files kept beside a cached plugin, in its directory,
// that say something about it which a later process should know: the
// tiered executor's verdict of which of the plugin and the closures ran
// faster (nablasd's tier.go). A note lives and dies with its plugin: it
// is written only where the plugin is, and a cache emptied removes both.

// ReadNote returns the note name of src's cached plugin; ok is false when
// the plugin is not in the cache or has no such note.
func ReadNote(src []byte, name string) (data []byte, ok bool) {
	if !validNote(name) {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(CacheDir(), Key(src), "note-"+name))
	if err != nil {
		return nil, false
	}
	return b, true
}

// WriteNote writes the note name of src's cached plugin, replacing one
// written before (atomically: a reader sees the old note or the new one,
// whole). It is an error when the plugin is not in the cache.
func WriteNote(src []byte, name string, data []byte) error {
	if !validNote(name) {
		return fmt.Errorf("jit: note name %q: want letters, digits, - and _", name)
	}
	dir := filepath.Join(CacheDir(), Key(src))
	if _, err := os.Stat(filepath.Join(dir, "kernel.so")); err != nil {
		return fmt.Errorf("jit: no cached plugin to note: %v", err)
	}
	f, err := os.CreateTemp(dir, ".note-*")
	if err != nil {
		return fmt.Errorf("jit: %v", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, "note-"+name))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("jit: %v", err)
	}
	return nil
}

// validNote reports whether a note's name is a plain file name.
func validNote(name string) bool {
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == ""
}
