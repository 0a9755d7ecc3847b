package cdpconn

import "sync"

// queue hands values from the reader goroutine to one subscriber. push never
// blocks: values wait in a slice without a bound, and a pump goroutine moves
// them to the channel in order. A slow or absent consumer therefore costs
// memory, never progress of the reader (which would stall every reply).
type queue[T any] struct {
	out  chan T
	wake chan struct{} // buffered 1: "there is news", coalesced
	stop chan struct{} // closed by cancel

	mu       sync.Mutex
	items    []T
	ended    bool
	stopOnce sync.Once
}

func newQueue[T any]() *queue[T] {
	q := &queue[T]{
		out:  make(chan T),
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
	}
	go q.pump()
	return q
}

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	if !q.ended {
		q.items = append(q.items, v)
	}
	q.mu.Unlock()
	q.poke()
}

// end closes the channel once the values already queued are delivered, so a
// consumer sees every event up to the end of the connection or session.
func (q *queue[T]) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.poke()
}

// cancel closes the channel at once and drops what is queued. Idempotent.
func (q *queue[T]) cancel() {
	q.stopOnce.Do(func() { close(q.stop) })
}

func (q *queue[T]) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue[T]) pump() {
	defer close(q.out)
	for {
		q.mu.Lock()
		items, ended := q.items, q.ended
		q.items = nil
		q.mu.Unlock()

		for i, v := range items {
			select {
			case q.out <- v:
				var zero T
				items[i] = zero // let a delivered value be collected early
			case <-q.stop:
				return
			}
		}
		if len(items) > 0 {
			continue
		}
		if ended {
			return
		}
		select {
		case <-q.wake:
		case <-q.stop:
			return
		}
	}
}
