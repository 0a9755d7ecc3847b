package datadir

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// endpointFile is what lyrad serve --http records of where it listens
// (HTTPInfo), so that doctor, lyrad status and a person can find the
// endpoint without the daemon's logs.
type endpointFile struct {
	URL string `json:"url"`
}

// WriteEndpoint records the daemon's HTTP endpoint, 0600. remove deletes
// it again; call it on shutdown.
func (d Dir) WriteEndpoint(endpoint string) (remove func(), err error) {
	b, err := json.Marshal(endpointFile{URL: endpoint})
	if err != nil {
		return nil, err
	}
	path := d.HTTPInfo()
	if err := putPrivateFile(path, append(b, '\n')); err != nil {
		return nil, err
	}
	return func() { _ = os.Remove(path) }, nil
}

// ReadEndpoint returns the endpoint WriteEndpoint recorded. A missing file
// is fs.ErrNotExist; one that does not hold an http URL is an error naming
// the file.
func (d Dir) ReadEndpoint() (string, error) {
	path := d.HTTPInfo()
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
