package download

import "sync"

// Lazy is a download directory opened on its first use: a server that
// never downloads never creates it. The zero value is ready.
type Lazy struct {
	mu    sync.Mutex
	store *Store
}

// Open is Open(dir, keep) the first time it succeeds, and the same store
// from then on, whatever it is given.
func (l *Lazy) Open(dir string, keep int) (*Store, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.store != nil {
		return l.store, nil
	}
	s, err := Open(dir, keep)
	if err != nil {
		return nil, err
	}
	l.store = s
	return s, nil
}
