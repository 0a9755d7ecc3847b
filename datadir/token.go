package datadir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The HTTP bearer token (Token): one line of hex, 32 random bytes, 0600.
// lyrad serve --http creates it (LoadToken); doctor and the operator
// commands only read it (ReadToken), so that looking never changes what a
// running daemon checks.

// minToken is the shortest token file content taken as a token: anything
// shorter is replaced by LoadToken, and so is not what a daemon serves.
const minToken = 32

// ReadToken reads the HTTP bearer token and changes nothing: it neither
// creates, replaces nor tightens the file. A missing file is
// fs.ErrNotExist.
func (d Dir) ReadToken() (string, error) {
	path := d.Token()
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < minToken {
		return "", fmt.Errorf("%s is too short to be a token", path)
	}
	return tok, nil
}

// LoadToken reads the HTTP bearer token, creating it (0600, 32 random
// bytes in hex) when there is none or what is there is too short, and
// tightening an existing one to 0600.
func (d Dir) LoadToken() (string, error) {
	path := d.Token()
	if b, err := os.ReadFile(path); err == nil {
		if tok := strings.TrimSpace(string(b)); len(tok) >= minToken {
			_ = os.Chmod(path, 0o600)
			return tok, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw[:])
	return tok, putPrivateFile(path, []byte(tok+"\n"))
}

// putPrivateFile writes data to path as a new 0600 file renamed over the
// old one: rewriting in place would keep the old file's mode (say 0644,
// readable by every local user) or write through a symlink, and a reader
// never sees half a file.
func putPrivateFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone already once renamed
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
