package cdpguard

import (
	"context"
	"sync"
	"time"
)

// decision is a judged request whose answer was sent.
type decision struct {
	r    Request
	v    Verdict
	took time.Duration
}

// decisionQueue hands the judged requests to Options.OnDecision in the order
// they were answered, on one goroutine of its own: the event loop that
// answers never waits for a record to be written. The queue has no bound,
// like a subscription's: a slow OnDecision costs memory, never a held
// request's time.
type decisionQueue struct {
	mu    sync.Mutex
	queue []decision
	wake  chan struct{} // buffered 1: there is news
}

func newDecisionQueue() *decisionQueue {
	return &decisionQueue{wake: make(chan struct{}, 1)}
}

func (d *decisionQueue) add(x decision) {
	d.mu.Lock()
	d.queue = append(d.queue, x)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run tells record of each decision until ctx ends, and then of those
// still queued: every request that was answered is recorded.
func (d *decisionQueue) run(ctx context.Context, record func(Request, Verdict, time.Duration)) {
	for {
		d.mu.Lock()
		batch := d.queue
		d.queue = nil
		d.mu.Unlock()
		for _, x := range batch {
			record(x.r, x.v, x.took)
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-d.wake:
		case <-ctx.Done():
			d.mu.Lock()
			batch, d.queue = d.queue, nil
			d.mu.Unlock()
			for _, x := range batch {
				record(x.r, x.v, x.took)
			}
			return
		}
	}
}
