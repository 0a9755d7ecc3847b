package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// endpointFile is what `lyrad serve --http` records of where it listens, so
// that doctor (and a person) can find the endpoint without the daemon's
// logs.
type endpointFile struct {
	URL string `json:"url"`
}

// WriteEndpoint records the daemon's HTTP endpoint at path
// (datadir.Dir.HTTPInfo), 0600. remove deletes it again; call it on
// shutdown.
func WriteEndpoint(path, endpoint string) (remove func(), err error) {
	b, err := json.Marshal(endpointFile{URL: endpoint})
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".http-*.json")
	if err != nil {
		return nil, err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o600)); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	return func() { _ = os.Remove(path) }, nil
}

// ReadEndpoint returns the endpoint WriteEndpoint recorded at path.
func ReadEndpoint(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	name := filepath.Base(path)
	var f endpointFile
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	u, err := url.Parse(f.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return "", fmt.Errorf("%s: not an http URL: %q", name, f.URL)
	}
	return f.URL, nil
}
